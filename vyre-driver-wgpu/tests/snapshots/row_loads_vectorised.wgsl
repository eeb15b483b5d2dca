@group(0) @binding(0) 
var<storage> data: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var b: u32;
    var b_1: u32;
    var b_2: u32;
    var b_3: u32;
    var vyre_lane: u32;
    var b_4: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e30 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e30, 255u) + 1u) >> 2u)) {
        let _e41 = (_e18 << 2u);
        b = (_e41 << (2u & 31u));
        let _e47 = b;
        let _e56 = data[min((_e47 >> 2u), ((_e23 - 1u) >> 2u))];
        local.x = ((((((select(0u, _e56.x, ((_e47 + 0u) < _e23)) * 3u) + select(0u, _e56.y, ((_e47 + 1u) < _e23))) * 3u) + select(0u, _e56.z, ((_e47 + 2u) < _e23))) * 3u) + select(0u, _e56.w, ((_e47 + 3u) < _e23)));
        b_1 = ((_e41 + 1u) << (2u & 31u));
        let _e98 = b_1;
        let _e107 = data[min((_e98 >> 2u), ((_e23 - 1u) >> 2u))];
        local.y = ((((((select(0u, _e107.x, ((_e98 + 0u) < _e23)) * 3u) + select(0u, _e107.y, ((_e98 + 1u) < _e23))) * 3u) + select(0u, _e107.z, ((_e98 + 2u) < _e23))) * 3u) + select(0u, _e107.w, ((_e98 + 3u) < _e23)));
        b_2 = ((_e41 + 2u) << (2u & 31u));
        let _e149 = b_2;
        let _e158 = data[min((_e149 >> 2u), ((_e23 - 1u) >> 2u))];
        local.z = ((((((select(0u, _e158.x, ((_e149 + 0u) < _e23)) * 3u) + select(0u, _e158.y, ((_e149 + 1u) < _e23))) * 3u) + select(0u, _e158.z, ((_e149 + 2u) < _e23))) * 3u) + select(0u, _e158.w, ((_e149 + 3u) < _e23)));
        b_3 = ((_e41 + 3u) << (2u & 31u));
        let _e200 = b_3;
        let _e209 = data[min((_e200 >> 2u), ((_e23 - 1u) >> 2u))];
        local.w = ((((((select(0u, _e209.x, ((_e200 + 0u) < _e23)) * 3u) + select(0u, _e209.y, ((_e200 + 1u) < _e23))) * 3u) + select(0u, _e209.z, ((_e200 + 2u) < _e23))) * 3u) + select(0u, _e209.w, ((_e200 + 3u) < _e23)));
        let _e244 = local;
        out[_e18] = _e244;
    } else {
        if (_e18 <= (_e30 >> 2u)) {
            let _e248 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e252 = vyre_lane;
                if ((_e252 >= 4u) || (_e252 > (_e30 - _e248))) {
                    break;
                }
                let _e257 = (_e248 + _e252);
                b_4 = (_e257 << (2u & 31u));
                let _e263 = b_4;
                let _e272 = data[min((_e263 >> 2u), ((_e23 - 1u) >> 2u))];
                let _e306 = (_e257 < 256u);
                let _e308 = select(0u, _e257, _e306);
                if _e306 {
                    out[(_e308 >> 2u)][(_e308 & 3u)] = ((((((select(0u, _e272.x, ((_e263 + 0u) < _e23)) * 3u) + select(0u, _e272.y, ((_e263 + 1u) < _e23))) * 3u) + select(0u, _e272.z, ((_e263 + 2u) < _e23))) * 3u) + select(0u, _e272.w, ((_e263 + 3u) < _e23)));
                }
                continuing {
                    let _e316 = vyre_lane;
                    vyre_lane = (_e316 + 1u);
                }
            }
        }
    }
}
