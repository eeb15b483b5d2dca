@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var sum: u32;
    var k: u32;
    var sum_1: u32;
    var k_1: u32;
    var sum_2: u32;
    var k_2: u32;
    var sum_3: u32;
    var k_3: u32;
    var vyre_lane: u32;
    var sum_4: u32;
    var k_4: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e28, 63u) + 1u) >> 2u)) {
        let _e39 = input[_e18];
        let _e42 = (_e18 << 2u);
        sum = 0u;
        k = 0u;
        loop {
            let _e48 = k;
            if !((_e48 < 8u)) {
                break;
            }
            let _e51 = k;
            if ((_e51 & 1u) == 1u) {
                continue;
            }
            let _e56 = k;
            if (_e56 > _e39.x) {
                break;
            }
            let _e59 = sum;
            let _e60 = k;
            sum = (_e59 + _e60);
            continuing {
                let _e62 = k;
                k = (_e62 + 1u);
            }
        }
        let _e65 = sum;
        local.x = _e65;
        sum_1 = 0u;
        k_1 = 0u;
        loop {
            let _e74 = k_1;
            if !((_e74 < 8u)) {
                break;
            }
            let _e77 = k_1;
            if ((_e77 & 1u) == 1u) {
                continue;
            }
            let _e82 = k_1;
            if (_e82 > _e39.y) {
                break;
            }
            let _e85 = sum_1;
            let _e86 = k_1;
            sum_1 = (_e85 + _e86);
            continuing {
                let _e88 = k_1;
                k_1 = (_e88 + 1u);
            }
        }
        let _e91 = sum_1;
        local.y = _e91;
        sum_2 = 0u;
        k_2 = 0u;
        loop {
            let _e100 = k_2;
            if !((_e100 < 8u)) {
                break;
            }
            let _e103 = k_2;
            if ((_e103 & 1u) == 1u) {
                continue;
            }
            let _e108 = k_2;
            if (_e108 > _e39.z) {
                break;
            }
            let _e111 = sum_2;
            let _e112 = k_2;
            sum_2 = (_e111 + _e112);
            continuing {
                let _e114 = k_2;
                k_2 = (_e114 + 1u);
            }
        }
        let _e117 = sum_2;
        local.z = _e117;
        sum_3 = 0u;
        k_3 = 0u;
        loop {
            let _e126 = k_3;
            if !((_e126 < 8u)) {
                break;
            }
            let _e129 = k_3;
            if ((_e129 & 1u) == 1u) {
                continue;
            }
            let _e134 = k_3;
            if (_e134 > _e39.w) {
                break;
            }
            let _e137 = sum_3;
            let _e138 = k_3;
            sum_3 = (_e137 + _e138);
            continuing {
                let _e140 = k_3;
                k_3 = (_e140 + 1u);
            }
        }
        let _e143 = sum_3;
        local.w = _e143;
        let _e145 = local;
        out[_e18] = _e145;
    } else {
        if (_e18 <= (_e28 >> 2u)) {
            let _e149 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e153 = vyre_lane;
                if ((_e153 >= 4u) || (_e153 > (_e28 - _e149))) {
                    break;
                }
                let _e158 = (_e149 + _e153);
                sum_4 = 0u;
                k_4 = 0u;
                loop {
                    let _e164 = k_4;
                    if !((_e164 < 8u)) {
                        break;
                    }
                    let _e167 = k_4;
                    if ((_e167 & 1u) == 1u) {
                        continue;
                    }
                    let _e172 = k_4;
                    let _e173 = (_e158 < 64u);
                    let _e175 = select(0u, _e158, _e173);
                    let _e183 = input[(_e175 >> 2u)][(_e175 & 3u)];
                    if (_e172 > select(0u, _e183, _e173)) {
                        break;
                    }
                    let _e187 = sum_4;
                    let _e188 = k_4;
                    sum_4 = (_e187 + _e188);
                    continuing {
                        let _e190 = k_4;
                        k_4 = (_e190 + 1u);
                    }
                }
                let _e193 = sum_4;
                let _e194 = (_e158 < 64u);
                let _e196 = select(0u, _e158, _e194);
                if _e194 {
                    out[(_e196 >> 2u)][(_e196 & 3u)] = _e193;
                }
                continuing {
                    let _e204 = vyre_lane;
                    vyre_lane = (_e204 + 1u);
                }
            }
        }
    }
}
