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

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e28, 63u) + 1u) >> 2u)) {
        let _e38 = input[_e18];
        let _e41 = (_e18 << 2u);
        sum = 0u;
        k = 0u;
        loop {
            let _e47 = k;
            if !((_e47 < 8u)) {
                break;
            }
            let _e50 = k;
            if ((_e50 & 1u) == 1u) {
                continue;
            }
            let _e55 = k;
            if (_e55 > _e38.x) {
                break;
            }
            let _e58 = sum;
            let _e59 = k;
            sum = (_e58 + _e59);
            continuing {
                let _e61 = k;
                k = (_e61 + 1u);
            }
        }
        let _e64 = sum;
        local.x = _e64;
        sum_1 = 0u;
        k_1 = 0u;
        loop {
            let _e73 = k_1;
            if !((_e73 < 8u)) {
                break;
            }
            let _e76 = k_1;
            if ((_e76 & 1u) == 1u) {
                continue;
            }
            let _e81 = k_1;
            if (_e81 > _e38.y) {
                break;
            }
            let _e84 = sum_1;
            let _e85 = k_1;
            sum_1 = (_e84 + _e85);
            continuing {
                let _e87 = k_1;
                k_1 = (_e87 + 1u);
            }
        }
        let _e90 = sum_1;
        local.y = _e90;
        sum_2 = 0u;
        k_2 = 0u;
        loop {
            let _e99 = k_2;
            if !((_e99 < 8u)) {
                break;
            }
            let _e102 = k_2;
            if ((_e102 & 1u) == 1u) {
                continue;
            }
            let _e107 = k_2;
            if (_e107 > _e38.z) {
                break;
            }
            let _e110 = sum_2;
            let _e111 = k_2;
            sum_2 = (_e110 + _e111);
            continuing {
                let _e113 = k_2;
                k_2 = (_e113 + 1u);
            }
        }
        let _e116 = sum_2;
        local.z = _e116;
        sum_3 = 0u;
        k_3 = 0u;
        loop {
            let _e125 = k_3;
            if !((_e125 < 8u)) {
                break;
            }
            let _e128 = k_3;
            if ((_e128 & 1u) == 1u) {
                continue;
            }
            let _e133 = k_3;
            if (_e133 > _e38.w) {
                break;
            }
            let _e136 = sum_3;
            let _e137 = k_3;
            sum_3 = (_e136 + _e137);
            continuing {
                let _e139 = k_3;
                k_3 = (_e139 + 1u);
            }
        }
        let _e142 = sum_3;
        local.w = _e142;
        let _e144 = local;
        out[_e18] = _e144;
    }
}

@compute @workgroup_size(64, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;
    var sum_4: u32;
    var k_4: u32;

    let _e15 = vyre_params[0u];
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    let _e35 = (((min(_e28, 63u) + 1u) >> 2u) + ((vyre_workgroup_id_1.x * 64u) + vyre_local_id_1.x));
    if (_e35 <= (_e28 >> 2u)) {
        let _e38 = (_e35 << 2u);
        vyre_lane = 0u;
        loop {
            let _e42 = vyre_lane;
            if ((_e42 >= 4u) || (_e42 > (_e28 - _e38))) {
                break;
            }
            let _e47 = (_e38 + _e42);
            sum_4 = 0u;
            k_4 = 0u;
            loop {
                let _e53 = k_4;
                if !((_e53 < 8u)) {
                    break;
                }
                let _e56 = k_4;
                if ((_e56 & 1u) == 1u) {
                    continue;
                }
                let _e61 = k_4;
                let _e62 = (_e47 < 64u);
                let _e64 = select(0u, _e47, _e62);
                let _e72 = input[(_e64 >> 2u)][(_e64 & 3u)];
                if (_e61 > select(0u, _e72, _e62)) {
                    break;
                }
                let _e76 = sum_4;
                let _e77 = k_4;
                sum_4 = (_e76 + _e77);
                continuing {
                    let _e79 = k_4;
                    k_4 = (_e79 + 1u);
                }
            }
            let _e82 = sum_4;
            let _e83 = (_e47 < 64u);
            let _e85 = select(0u, _e47, _e83);
            if _e83 {
                out[(_e85 >> 2u)][(_e85 & 3u)] = _e82;
            }
            continuing {
                let _e93 = vyre_lane;
                vyre_lane = (_e93 + 1u);
            }
        }
    }
}
