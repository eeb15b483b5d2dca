@group(0) @binding(0) 
var<storage> a: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage> b: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;

    let _e15 = vyre_params[0u];
    let _e19 = (vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z))));
    if (_e19 > ((_e15 - 1u) >> 2u)) {
        return;
    }
    let _e27 = ((_e19 * 64u) + vyre_local_id.x);
    let _e38 = (((_e15 - 1u) * 64u) + 63u);
    if (_e27 < ((min(_e38, 1023u) + 1u) >> 2u)) {
        let _e48 = a[_e27];
        let _e51 = b[_e27];
        let _e54 = (_e27 << 2u);
        local.x = (_e48.x + _e51.x);
        local.y = (_e48.y + _e51.y);
        local.z = (_e48.z + _e51.z);
        local.w = (_e48.w + _e51.w);
        let _e77 = local;
        out[_e27] = _e77;
    }
}

@compute @workgroup_size(64, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e19 = (vyre_workgroup_id_1.x + (vyre_num_workgroups_1.x * (vyre_workgroup_id_1.y + (vyre_num_workgroups_1.y * vyre_workgroup_id_1.z))));
    if (_e19 > ((_e15 - 1u) >> 2u)) {
        return;
    }
    let _e38 = (((_e15 - 1u) * 64u) + 63u);
    let _e45 = (((min(_e38, 1023u) + 1u) >> 2u) + ((_e19 * 64u) + vyre_local_id_1.x));
    if (_e45 <= (_e38 >> 2u)) {
        let _e48 = (_e45 << 2u);
        vyre_lane = 0u;
        loop {
            let _e52 = vyre_lane;
            if ((_e52 >= 4u) || (_e52 > (_e38 - _e48))) {
                break;
            }
            let _e57 = (_e48 + _e52);
            let _e58 = (_e57 < 1024u);
            let _e60 = select(0u, _e57, _e58);
            let _e68 = a[(_e60 >> 2u)][(_e60 & 3u)];
            let _e71 = (_e57 < 1024u);
            let _e73 = select(0u, _e57, _e71);
            let _e81 = b[(_e73 >> 2u)][(_e73 & 3u)];
            let _e85 = (_e57 < 1024u);
            let _e87 = select(0u, _e57, _e85);
            if _e85 {
                out[(_e87 >> 2u)][(_e87 & 3u)] = (select(0u, _e68, _e58) + select(0u, _e81, _e71));
            }
            continuing {
                let _e95 = vyre_lane;
                vyre_lane = (_e95 + 1u);
            }
        }
    }
}
