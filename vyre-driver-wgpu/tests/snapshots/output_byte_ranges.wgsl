@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> head: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> tail: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = input[select(0u, _e15, _e25)];
    let _e33 = (_e15 < 64u);
    if _e33 {
        head[select(0u, _e15, _e33)] = select(0u, _e30, _e25);
    }
    let _e38 = (_e15 < 64u);
    let _e43 = input[select(0u, _e15, _e38)];
    let _e47 = (_e15 < 64u);
    if _e47 {
        tail[select(0u, _e15, _e47)] = ~(select(0u, _e43, _e38));
    }
}
