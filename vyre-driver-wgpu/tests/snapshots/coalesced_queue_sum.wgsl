@group(0) @binding(0) 
var<storage> payload: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<atomic<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;
@group(1) @binding(1) 
var<storage> vyre_items: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: u32;

    let _e15 = vyre_params[0u];
    let _e18 = vyre_params[1u];
    let _e21 = vyre_params[2u];
    let _e24 = vyre_params[3u];
    let _e28 = (vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z))));
    let _e29 = (_e15 * _e18);
    let _e30 = (_e29 * _e21);
    if (_e28 >= (_e30 * _e24)) {
        return;
    }
    let _e33 = (_e28 / _e30);
    let _e34 = (_e28 % _e30);
    let vyre_gid_x = (((_e34 % _e15) * 64u) + vyre_local_id.x);
    let _e54 = (((_e33 * 2u) + 0u) * 2u);
    let _e56 = vyre_items[_e54];
    let _e60 = vyre_items[(_e54 + 1u)];
    let _e68 = vyre_items[(((_e33 * 2u) + 1u) * 2u)];
    let _e71 = (vyre_gid_x < _e60);
    let _e77 = payload[(_e56 + select(0u, vyre_gid_x, _e71))];
    local = 0u;
    {
        let _e85 = atomicAdd((&out[(_e68 + 0u)]), select(0u, _e77, _e71));
        local = _e85;
    }
    let old = local;
}
