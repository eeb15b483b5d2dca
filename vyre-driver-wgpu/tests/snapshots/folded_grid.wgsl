@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(256, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = vyre_params[0u];
    let _e18 = vyre_params[1u];
    let _e21 = vyre_params[2u];
    let _e24 = vyre_params[3u];
    let _e28 = (vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z))));
    let _e29 = (_e15 * _e18);
    if (_e28 >= ((_e29 * _e21) * _e24)) {
        return;
    }
    let vyre_gid_x = (((_e28 % _e15) * 256u) + vyre_local_id.x);
    let vyre_gid_y = ((((_e28 / _e15) % _e18) * 1u) + vyre_local_id.y);
    let _e48 = vyre_params[8u];
    let _e50 = (vyre_gid_x < _e48);
    let _e55 = a[select(0u, vyre_gid_x, _e50)];
    let _e59 = (vyre_gid_x < 33554432u);
    if _e59 {
        out[select(0u, vyre_gid_x, _e59)] = (select(0u, _e55, _e50) + vyre_gid_y);
    }
}
