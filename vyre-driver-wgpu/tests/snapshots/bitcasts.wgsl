@group(0) @binding(0) 
var<storage> input: array<vec4<f32>>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<vec4<i32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<f32>;
    var local_1: vec4<u32>;
    var local_2: vec4<i32>;
    var x: f32;
    var x_1: f32;
    var x_2: f32;
    var x_3: f32;
    var vyre_lane: u32;
    var x_4: f32;

    let _e31 = (((vyre_num_workgroups.x - 1u) * 64u) + 63u);
    let _e33 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    if (_e33 > (_e31 / 4u)) {
        return;
    }
    let _e36 = (_e33 * 4u);
    let _e37 = (_e31 - _e36);
    if ((_e37 >= 3u) && (_e36 < 61u)) {
        let _e46 = input[_e33];
        local = _e46;
        let _e50 = (_e36 + 0u);
        let _e55 = local.x;
        x = _e55;
        let _e58 = x;
        local_1.x = bitcast<u32>(_e58);
        let _e61 = x;
        local_2.x = bitcast<i32>(_e61);
        let _e64 = (_e36 + 1u);
        let _e69 = local.y;
        x_1 = _e69;
        let _e72 = x_1;
        local_1.y = bitcast<u32>(_e72);
        let _e75 = x_1;
        local_2.y = bitcast<i32>(_e75);
        let _e78 = (_e36 + 2u);
        let _e83 = local.z;
        x_2 = _e83;
        let _e86 = x_2;
        local_1.z = bitcast<u32>(_e86);
        let _e89 = x_2;
        local_2.z = bitcast<i32>(_e89);
        let _e92 = (_e36 + 3u);
        let _e97 = local.w;
        x_3 = _e97;
        let _e100 = x_3;
        local_1.w = bitcast<u32>(_e100);
        let _e103 = x_3;
        local_2.w = bitcast<i32>(_e103);
        let _e105 = local_1;
        as_u32_[_e33] = _e105;
        let _e108 = local_2;
        as_i32_[_e33] = _e108;
    } else {
        vyre_lane = 0u;
        loop {
            let _e113 = vyre_lane;
            if ((_e113 >= 4u) || (_e113 > _e37)) {
                break;
            }
            let _e118 = (_e36 + _e113);
            let _e122 = (_e118 < 64u);
            let _e124 = select(0u, _e118, _e122);
            let _e131 = input[(_e124 / 4u)][(_e124 % 4u)];
            x_4 = select(0f, _e131, _e122);
            let _e135 = x_4;
            let _e137 = (_e118 < 64u);
            let _e139 = select(0u, _e118, _e137);
            if _e137 {
                as_u32_[(_e139 / 4u)][(_e139 % 4u)] = bitcast<u32>(_e135);
            }
            let _e146 = x_4;
            let _e148 = (_e118 < 64u);
            let _e150 = select(0u, _e118, _e148);
            if _e148 {
                as_i32_[(_e150 / 4u)][(_e150 % 4u)] = bitcast<i32>(_e146);
            }
            continuing {
                let _e157 = vyre_lane;
                vyre_lane = (_e157 + 1u);
            }
        }
    }
}
