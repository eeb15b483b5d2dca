@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: i32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    x = select(0i, _e29, _e24);
    let _e36 = ((_e15 * 2u) + 0u);
    let _e37 = x;
    let _e39 = (_e36 < 128u);
    if _e39 {
        out[select(0u, _e36, _e39)] = -(_e37);
    }
    let _e47 = ((_e15 * 2u) + 1u);
    let _e48 = x;
    let _e53 = (_e47 < 128u);
    if _e53 {
        out[select(0u, _e47, _e53)] = select(_e48, (0i - _e48), (_e48 < 0i));
    }
}
