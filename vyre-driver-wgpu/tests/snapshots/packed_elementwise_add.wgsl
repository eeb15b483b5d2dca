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
    let _e51 = a[((_e37 * 1024u) + _e38)];
    let _e55 = b[((_e37 * 1024u) + _e38)];
    out[((_e37 * 1024u) + _e38)] = (_e51 + _e55);
}
