@group(0) @binding(0) 
var<storage> data: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e30 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e30, 255u) + 1u) >> 2u)) {
        let _e41 = (_e18 << 2u);
        let b = (_e41 << (2u & 31u));
        let _e54 = data[min((b >> 2u), ((_e23 - 1u) >> 2u))];
        local.x = ((((((select(0u, _e54.x, ((b + 0u) < _e23)) * 3u) + select(0u, _e54.y, ((b + 1u) < _e23))) * 3u) + select(0u, _e54.z, ((b + 2u) < _e23))) * 3u) + select(0u, _e54.w, ((b + 3u) < _e23)));
        let b_1 = ((_e41 + 1u) << (2u & 31u));
        let _e103 = data[min((b_1 >> 2u), ((_e23 - 1u) >> 2u))];
        local.y = ((((((select(0u, _e103.x, ((b_1 + 0u) < _e23)) * 3u) + select(0u, _e103.y, ((b_1 + 1u) < _e23))) * 3u) + select(0u, _e103.z, ((b_1 + 2u) < _e23))) * 3u) + select(0u, _e103.w, ((b_1 + 3u) < _e23)));
        let b_2 = ((_e41 + 2u) << (2u & 31u));
        let _e152 = data[min((b_2 >> 2u), ((_e23 - 1u) >> 2u))];
        local.z = ((((((select(0u, _e152.x, ((b_2 + 0u) < _e23)) * 3u) + select(0u, _e152.y, ((b_2 + 1u) < _e23))) * 3u) + select(0u, _e152.z, ((b_2 + 2u) < _e23))) * 3u) + select(0u, _e152.w, ((b_2 + 3u) < _e23)));
        let b_3 = ((_e41 + 3u) << (2u & 31u));
        let _e201 = data[min((b_3 >> 2u), ((_e23 - 1u) >> 2u))];
        local.w = ((((((select(0u, _e201.x, ((b_3 + 0u) < _e23)) * 3u) + select(0u, _e201.y, ((b_3 + 1u) < _e23))) * 3u) + select(0u, _e201.z, ((b_3 + 2u) < _e23))) * 3u) + select(0u, _e201.w, ((b_3 + 3u) < _e23)));
        let _e236 = local;
        out[_e18] = _e236;
    } else {
        if (_e18 <= (_e30 >> 2u)) {
            let _e240 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e244 = vyre_lane;
                if ((_e244 >= 4u) || (_e244 > (_e30 - _e240))) {
                    break;
                }
                let _e249 = (_e240 + _e244);
                let b_4 = (_e249 << (2u & 31u));
                let _e262 = data[min((b_4 >> 2u), ((_e23 - 1u) >> 2u))];
                let _e296 = (_e249 < 256u);
                let _e298 = select(0u, _e249, _e296);
                if _e296 {
                    out[(_e298 >> 2u)][(_e298 & 3u)] = ((((((select(0u, _e262.x, ((b_4 + 0u) < _e23)) * 3u) + select(0u, _e262.y, ((b_4 + 1u) < _e23))) * 3u) + select(0u, _e262.z, ((b_4 + 2u) < _e23))) * 3u) + select(0u, _e262.w, ((b_4 + 3u) < _e23)));
                }
                continuing {
                    let _e306 = vyre_lane;
                    vyre_lane = (_e306 + 1u);
                }
            }
        }
    }
}
