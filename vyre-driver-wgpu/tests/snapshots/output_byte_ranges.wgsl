@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> head: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> tail: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = input[select(0u, _e6, _e10)];
    let _e18 = (_e6 < 64u);
    if _e18 {
        head[select(0u, _e6, _e18)] = select(0u, _e15, _e10);
    }
    let _e23 = (_e6 < 64u);
    let _e28 = input[select(0u, _e6, _e23)];
    let _e32 = (_e6 < 64u);
    if _e32 {
        tail[select(0u, _e6, _e32)] = ~(select(0u, _e28, _e23));
    }
}
