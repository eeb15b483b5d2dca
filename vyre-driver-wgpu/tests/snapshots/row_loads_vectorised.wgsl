@group(0) @binding(0) 
var<storage> data: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e30 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e30, 255u) + 1u) >> 2u)) {
        let _e40 = (_e18 << 2u);
        let b = (_e40 << 2u);
        let _e52 = data[min((b >> 2u), ((_e23 - 1u) >> 2u))];
        local.x = ((((((select(0u, _e52.x, ((b + 0u) < _e23)) * 3u) + select(0u, _e52.y, ((b + 1u) < _e23))) * 3u) + select(0u, _e52.z, ((b + 2u) < _e23))) * 3u) + select(0u, _e52.w, ((b + 3u) < _e23)));
        let b_1 = ((_e40 + 1u) << 2u);
        let _e100 = data[min((b_1 >> 2u), ((_e23 - 1u) >> 2u))];
        local.y = ((((((select(0u, _e100.x, ((b_1 + 0u) < _e23)) * 3u) + select(0u, _e100.y, ((b_1 + 1u) < _e23))) * 3u) + select(0u, _e100.z, ((b_1 + 2u) < _e23))) * 3u) + select(0u, _e100.w, ((b_1 + 3u) < _e23)));
        let b_2 = ((_e40 + 2u) << 2u);
        let _e148 = data[min((b_2 >> 2u), ((_e23 - 1u) >> 2u))];
        local.z = ((((((select(0u, _e148.x, ((b_2 + 0u) < _e23)) * 3u) + select(0u, _e148.y, ((b_2 + 1u) < _e23))) * 3u) + select(0u, _e148.z, ((b_2 + 2u) < _e23))) * 3u) + select(0u, _e148.w, ((b_2 + 3u) < _e23)));
        let b_3 = ((_e40 + 3u) << 2u);
        let _e196 = data[min((b_3 >> 2u), ((_e23 - 1u) >> 2u))];
        local.w = ((((((select(0u, _e196.x, ((b_3 + 0u) < _e23)) * 3u) + select(0u, _e196.y, ((b_3 + 1u) < _e23))) * 3u) + select(0u, _e196.z, ((b_3 + 2u) < _e23))) * 3u) + select(0u, _e196.w, ((b_3 + 3u) < _e23)));
        let _e231 = local;
        out[_e18] = _e231;
    }
}

@compute @workgroup_size(64, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e23 = vyre_params[8u];
    let _e30 = (((_e15 - 1u) * 64u) + 63u);
    let _e37 = (((min(_e30, 255u) + 1u) >> 2u) + ((vyre_workgroup_id_1.x * 64u) + vyre_local_id_1.x));
    if (_e37 <= (_e30 >> 2u)) {
        let _e40 = (_e37 << 2u);
        vyre_lane = 0u;
        loop {
            let _e44 = vyre_lane;
            if ((_e44 >= 4u) || (_e44 > (_e30 - _e40))) {
                break;
            }
            let _e49 = (_e40 + _e44);
            let b_4 = (_e49 << 2u);
            let _e61 = data[min((b_4 >> 2u), ((_e23 - 1u) >> 2u))];
            let _e95 = (_e49 < 256u);
            let _e97 = select(0u, _e49, _e95);
            if _e95 {
                out[(_e97 >> 2u)][(_e97 & 3u)] = ((((((select(0u, _e61.x, ((b_4 + 0u) < _e23)) * 3u) + select(0u, _e61.y, ((b_4 + 1u) < _e23))) * 3u) + select(0u, _e61.z, ((b_4 + 2u) < _e23))) * 3u) + select(0u, _e61.w, ((b_4 + 3u) < _e23)));
            }
            continuing {
                let _e105 = vyre_lane;
                vyre_lane = (_e105 + 1u);
            }
        }
    }
}
