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
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e29 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e29, 1023u) + 1u) >> 2u)) {
        let _e39 = a[_e18];
        let _e42 = b[_e18];
        let _e45 = (_e18 << 2u);
        local.x = (_e39.x + _e42.x);
        local.y = (_e39.y + _e42.y);
        local.z = (_e39.z + _e42.z);
        local.w = (_e39.w + _e42.w);
        let _e68 = local;
        out[_e18] = _e68;
    }
}

@compute @workgroup_size(64, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e29 = (((_e15 - 1u) * 64u) + 63u);
    let _e36 = (((min(_e29, 1023u) + 1u) >> 2u) + ((vyre_workgroup_id_1.x * 64u) + vyre_local_id_1.x));
    if (_e36 <= (_e29 >> 2u)) {
        let _e39 = (_e36 << 2u);
        vyre_lane = 0u;
        loop {
            let _e43 = vyre_lane;
            if ((_e43 >= 4u) || (_e43 > (_e29 - _e39))) {
                break;
            }
            let _e48 = (_e39 + _e43);
            let _e49 = (_e48 < 1024u);
            let _e51 = select(0u, _e48, _e49);
            let _e59 = a[(_e51 >> 2u)][(_e51 & 3u)];
            let _e62 = (_e48 < 1024u);
            let _e64 = select(0u, _e48, _e62);
            let _e72 = b[(_e64 >> 2u)][(_e64 & 3u)];
            let _e76 = (_e48 < 1024u);
            let _e78 = select(0u, _e48, _e76);
            if _e76 {
                out[(_e78 >> 2u)][(_e78 & 3u)] = (select(0u, _e59, _e49) + select(0u, _e72, _e62));
            }
            continuing {
                let _e86 = vyre_lane;
                vyre_lane = (_e86 + 1u);
            }
        }
    }
}
