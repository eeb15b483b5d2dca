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
    let _e24 = vyre_params[3u];
    let _e27 = vyre_params[4u];
    let _e34 = (((vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z)))) * 64u) + vyre_local_id.x);
    if (_e34 >= (_e27 * _e24)) {
        return;
    }
    let _e37 = (_e34 / _e27);
    let _e38 = (_e34 % _e27);
    let _e44 = vyre_params[8u];
    let _e48 = vyre_params[9u];
    let _e52 = vyre_params[10u];
    let _e54 = (_e38 < _e44);
    let _e60 = a[((_e37 * _e44) + select(0u, _e38, _e54))];
    let _e63 = (_e38 < _e48);
    let _e69 = b[((_e37 * _e48) + select(0u, _e38, _e63))];
    let _e73 = (_e38 < _e52);
    if _e73 {
        out[((_e37 * _e52) + select(0u, _e38, _e73))] = (select(0u, _e60, _e54) + select(0u, _e69, _e63));
    }
}
