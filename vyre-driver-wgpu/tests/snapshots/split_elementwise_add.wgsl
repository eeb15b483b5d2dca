@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
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
    let _e39 = vyre_params[5u];
    let _e45 = (_e39 * 64u);
    let vyre_gid_x = ((((_e28 % _e15) + _e39) * 64u) + vyre_local_id.x);
    let _e59 = (vyre_gid_x < 1024u);
    let _e64 = a[select(0u, (vyre_gid_x - _e45), _e59)];
    let _e68 = (vyre_gid_x < 1024u);
    let _e73 = b[select(0u, (vyre_gid_x - _e45), _e68)];
    let _e78 = (vyre_gid_x < 1024u);
    if _e78 {
        out[select(0u, (vyre_gid_x - _e45), _e78)] = (select(0u, _e64, _e59) + select(0u, _e73, _e68));
    }
}
