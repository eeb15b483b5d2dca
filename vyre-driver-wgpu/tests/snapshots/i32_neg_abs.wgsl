@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = a[select(0u, _e6, _e9)];
    let x = select(0i, _e14, _e9);
    let _e20 = ((_e6 * 2u) + 0u);
    let _e22 = (_e20 < 128u);
    if _e22 {
        out[select(0u, _e20, _e22)] = -(x);
    }
    let _e30 = ((_e6 * 2u) + 1u);
    let _e35 = (_e30 < 128u);
    if _e35 {
        out[select(0u, _e30, _e35)] = select(x, (0i - x), (x < 0i));
    }
}
