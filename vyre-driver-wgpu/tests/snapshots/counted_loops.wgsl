@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<i32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<i32>;
    var sum: i32;
    var n: u32;
    var k: u32;
    var j: i32;
    var sum_1: i32;
    var n_1: u32;
    var k_1: u32;
    var j_1: i32;
    var sum_2: i32;
    var n_2: u32;
    var k_2: u32;
    var j_2: i32;
    var sum_3: i32;
    var n_3: u32;
    var k_3: u32;
    var j_3: i32;
    var vyre_lane: u32;
    var sum_4: i32;
    var n_4: u32;
    var k_4: u32;
    var j_4: i32;

    let _e30 = (((vyre_num_workgroups.x - 1u) * 64u) + 63u);
    let _e32 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    if (_e32 > (_e30 / 4u)) {
        return;
    }
    let _e35 = (_e32 * 4u);
    let _e36 = (_e30 - _e35);
    if ((_e36 >= 3u) && (_e35 < 61u)) {
        let _e45 = input[_e32];
        local = _e45;
        let _e48 = (_e35 + 0u);
        sum = 0i;
        let _e55 = local.x;
        n = _e55;
        let _e58 = n;
        k = 0u;
        loop {
            let _e60 = k;
            if !((_e60 < _e58)) {
                break;
            }
            let _e63 = n;
            n = (_e63 + 1u);
            j = -2i;
            loop {
                let _e69 = j;
                if !((_e69 < 3i)) {
                    break;
                }
                let _e72 = sum;
                let _e73 = j;
                let _e74 = k;
                sum = (_e72 + (_e73 * bitcast<i32>(_e74)));
                continuing {
                    let _e78 = j;
                    j = (_e78 + 1i);
                }
            }
            continuing {
                let _e81 = k;
                k = (_e81 + 1u);
            }
        }
        let _e85 = sum;
        local_1.x = _e85;
        let _e87 = (_e35 + 1u);
        sum_1 = 0i;
        let _e94 = local.y;
        n_1 = _e94;
        let _e97 = n_1;
        k_1 = 0u;
        loop {
            let _e99 = k_1;
            if !((_e99 < _e97)) {
                break;
            }
            let _e102 = n_1;
            n_1 = (_e102 + 1u);
            j_1 = -2i;
            loop {
                let _e108 = j_1;
                if !((_e108 < 3i)) {
                    break;
                }
                let _e111 = sum_1;
                let _e112 = j_1;
                let _e113 = k_1;
                sum_1 = (_e111 + (_e112 * bitcast<i32>(_e113)));
                continuing {
                    let _e117 = j_1;
                    j_1 = (_e117 + 1i);
                }
            }
            continuing {
                let _e120 = k_1;
                k_1 = (_e120 + 1u);
            }
        }
        let _e124 = sum_1;
        local_1.y = _e124;
        let _e126 = (_e35 + 2u);
        sum_2 = 0i;
        let _e133 = local.z;
        n_2 = _e133;
        let _e136 = n_2;
        k_2 = 0u;
        loop {
            let _e138 = k_2;
            if !((_e138 < _e136)) {
                break;
            }
            let _e141 = n_2;
            n_2 = (_e141 + 1u);
            j_2 = -2i;
            loop {
                let _e147 = j_2;
                if !((_e147 < 3i)) {
                    break;
                }
                let _e150 = sum_2;
                let _e151 = j_2;
                let _e152 = k_2;
                sum_2 = (_e150 + (_e151 * bitcast<i32>(_e152)));
                continuing {
                    let _e156 = j_2;
                    j_2 = (_e156 + 1i);
                }
            }
            continuing {
                let _e159 = k_2;
                k_2 = (_e159 + 1u);
            }
        }
        let _e163 = sum_2;
        local_1.z = _e163;
        let _e165 = (_e35 + 3u);
        sum_3 = 0i;
        let _e172 = local.w;
        n_3 = _e172;
        let _e175 = n_3;
        k_3 = 0u;
        loop {
            let _e177 = k_3;
            if !((_e177 < _e175)) {
                break;
            }
            let _e180 = n_3;
            n_3 = (_e180 + 1u);
            j_3 = -2i;
            loop {
                let _e186 = j_3;
                if !((_e186 < 3i)) {
                    break;
                }
                let _e189 = sum_3;
                let _e190 = j_3;
                let _e191 = k_3;
                sum_3 = (_e189 + (_e190 * bitcast<i32>(_e191)));
                continuing {
                    let _e195 = j_3;
                    j_3 = (_e195 + 1i);
                }
            }
            continuing {
                let _e198 = k_3;
                k_3 = (_e198 + 1u);
            }
        }
        let _e202 = sum_3;
        local_1.w = _e202;
        let _e203 = local_1;
        out[_e32] = _e203;
    } else {
        vyre_lane = 0u;
        loop {
            let _e208 = vyre_lane;
            if ((_e208 >= 4u) || (_e208 > _e36)) {
                break;
            }
            let _e213 = (_e35 + _e208);
            sum_4 = 0i;
            let _e219 = (_e213 < 64u);
            let _e221 = select(0u, _e213, _e219);
            let _e228 = input[(_e221 / 4u)][(_e221 % 4u)];
            n_4 = select(0u, _e228, _e219);
            let _e233 = n_4;
            k_4 = 0u;
            loop {
                let _e235 = k_4;
                if !((_e235 < _e233)) {
                    break;
                }
                let _e238 = n_4;
                n_4 = (_e238 + 1u);
                j_4 = -2i;
                loop {
                    let _e244 = j_4;
                    if !((_e244 < 3i)) {
                        break;
                    }
                    let _e247 = sum_4;
                    let _e248 = j_4;
                    let _e249 = k_4;
                    sum_4 = (_e247 + (_e248 * bitcast<i32>(_e249)));
                    continuing {
                        let _e253 = j_4;
                        j_4 = (_e253 + 1i);
                    }
                }
                continuing {
                    let _e256 = k_4;
                    k_4 = (_e256 + 1u);
                }
            }
            let _e259 = sum_4;
            let _e260 = (_e213 < 64u);
            let _e262 = select(0u, _e213, _e260);
            if _e260 {
                out[(_e262 / 4u)][(_e262 % 4u)] = _e259;
            }
            continuing {
                let _e269 = vyre_lane;
                vyre_lane = (_e269 + 1u);
            }
        }
    }
}
