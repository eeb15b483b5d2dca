@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    let x = select(0i, _e29, _e24);
    let _e35 = ((_e15 * 2u) + 0u);
    let _e37 = (_e35 < 128u);
    if _e37 {
        out[select(0u, _e35, _e37)] = -(x);
    }
    let _e45 = ((_e15 * 2u) + 1u);
    let _e50 = (_e45 < 128u);
    if _e50 {
        out[select(0u, _e45, _e50)] = select(x, (0i - x), (x < 0i));
    }
}
