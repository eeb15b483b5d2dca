@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> as_f32_: array<vec4<f32>>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<vec4<i32>>;
@group(0) @binding(3) 
var<storage, read_write> as_bool: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<f32>;
    var local_2: vec4<i32>;
    var local_3: vec4<u32>;
    var x: u32;
    var x_1: u32;
    var x_2: u32;
    var x_3: u32;
    var vyre_lane: u32;
    var x_4: u32;

    let _e32 = (((vyre_num_workgroups.x - 1u) * 64u) + 63u);
    let _e34 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    if (_e34 > (_e32 / 4u)) {
        return;
    }
    let _e37 = (_e34 * 4u);
    let _e38 = (_e32 - _e37);
    if ((_e38 >= 3u) && (_e37 < 61u)) {
        let _e47 = input[_e34];
        local = _e47;
        let _e52 = (_e37 + 0u);
        let _e57 = local.x;
        x = _e57;
        let _e60 = x;
        local_1.x = f32(_e60);
        let _e63 = x;
        local_2.x = i32(_e63);
        let _e66 = x;
        local_3.x = select(0u, 1u, (_e66 != 0u));
        let _e73 = (_e37 + 1u);
        let _e78 = local.y;
        x_1 = _e78;
        let _e81 = x_1;
        local_1.y = f32(_e81);
        let _e84 = x_1;
        local_2.y = i32(_e84);
        let _e87 = x_1;
        local_3.y = select(0u, 1u, (_e87 != 0u));
        let _e94 = (_e37 + 2u);
        let _e99 = local.z;
        x_2 = _e99;
        let _e102 = x_2;
        local_1.z = f32(_e102);
        let _e105 = x_2;
        local_2.z = i32(_e105);
        let _e108 = x_2;
        local_3.z = select(0u, 1u, (_e108 != 0u));
        let _e115 = (_e37 + 3u);
        let _e120 = local.w;
        x_3 = _e120;
        let _e123 = x_3;
        local_1.w = f32(_e123);
        let _e126 = x_3;
        local_2.w = i32(_e126);
        let _e129 = x_3;
        local_3.w = select(0u, 1u, (_e129 != 0u));
        let _e135 = local_1;
        as_f32_[_e34] = _e135;
        let _e138 = local_2;
        as_i32_[_e34] = _e138;
        let _e141 = local_3;
        as_bool[_e34] = _e141;
    } else {
        vyre_lane = 0u;
        loop {
            let _e146 = vyre_lane;
            if ((_e146 >= 4u) || (_e146 > _e38)) {
                break;
            }
            let _e151 = (_e37 + _e146);
            let _e155 = (_e151 < 64u);
            let _e157 = select(0u, _e151, _e155);
            let _e164 = input[(_e157 / 4u)][(_e157 % 4u)];
            x_4 = select(0u, _e164, _e155);
            let _e168 = x_4;
            let _e170 = (_e151 < 64u);
            let _e172 = select(0u, _e151, _e170);
            if _e170 {
                as_f32_[(_e172 / 4u)][(_e172 % 4u)] = f32(_e168);
            }
            let _e179 = x_4;
            let _e181 = (_e151 < 64u);
            let _e183 = select(0u, _e151, _e181);
            if _e181 {
                as_i32_[(_e183 / 4u)][(_e183 % 4u)] = i32(_e179);
            }
            let _e190 = x_4;
            let _e193 = (_e151 < 64u);
            let _e195 = select(0u, _e151, _e193);
            if _e193 {
                as_bool[(_e195 / 4u)][(_e195 % 4u)] = select(0u, 1u, (_e190 != 0u));
            }
            continuing {
                let _e205 = vyre_lane;
                vyre_lane = (_e205 + 1u);
            }
        }
    }
}
