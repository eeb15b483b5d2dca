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
        let b = (_e40 << (2u & 31u));
        let _e53 = data[min((b >> 2u), ((_e23 - 1u) >> 2u))];
        local.x = ((((((select(0u, _e53.x, ((b + 0u) < _e23)) * 3u) + select(0u, _e53.y, ((b + 1u) < _e23))) * 3u) + select(0u, _e53.z, ((b + 2u) < _e23))) * 3u) + select(0u, _e53.w, ((b + 3u) < _e23)));
        let b_1 = ((_e40 + 1u) << (2u & 31u));
        let _e102 = data[min((b_1 >> 2u), ((_e23 - 1u) >> 2u))];
        local.y = ((((((select(0u, _e102.x, ((b_1 + 0u) < _e23)) * 3u) + select(0u, _e102.y, ((b_1 + 1u) < _e23))) * 3u) + select(0u, _e102.z, ((b_1 + 2u) < _e23))) * 3u) + select(0u, _e102.w, ((b_1 + 3u) < _e23)));
        let b_2 = ((_e40 + 2u) << (2u & 31u));
        let _e151 = data[min((b_2 >> 2u), ((_e23 - 1u) >> 2u))];
        local.z = ((((((select(0u, _e151.x, ((b_2 + 0u) < _e23)) * 3u) + select(0u, _e151.y, ((b_2 + 1u) < _e23))) * 3u) + select(0u, _e151.z, ((b_2 + 2u) < _e23))) * 3u) + select(0u, _e151.w, ((b_2 + 3u) < _e23)));
        let b_3 = ((_e40 + 3u) << (2u & 31u));
        let _e200 = data[min((b_3 >> 2u), ((_e23 - 1u) >> 2u))];
        local.w = ((((((select(0u, _e200.x, ((b_3 + 0u) < _e23)) * 3u) + select(0u, _e200.y, ((b_3 + 1u) < _e23))) * 3u) + select(0u, _e200.z, ((b_3 + 2u) < _e23))) * 3u) + select(0u, _e200.w, ((b_3 + 3u) < _e23)));
        let _e235 = local;
        out[_e18] = _e235;
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
            let b_4 = (_e49 << (2u & 31u));
            let _e62 = data[min((b_4 >> 2u), ((_e23 - 1u) >> 2u))];
            let _e96 = (_e49 < 256u);
            let _e98 = select(0u, _e49, _e96);
            if _e96 {
                out[(_e98 >> 2u)][(_e98 & 3u)] = ((((((select(0u, _e62.x, ((b_4 + 0u) < _e23)) * 3u) + select(0u, _e62.y, ((b_4 + 1u) < _e23))) * 3u) + select(0u, _e62.z, ((b_4 + 2u) < _e23))) * 3u) + select(0u, _e62.w, ((b_4 + 3u) < _e23)));
            }
            continuing {
                let _e106 = vyre_lane;
                vyre_lane = (_e106 + 1u);
            }
        }
    }
}
