@group(0) @binding(0) 
var<storage> input: array<vec4<f32>>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<vec4<i32>>;
@group(0) @binding(3) 
var<storage, read_write> as_bool: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<f32>;
    var local_1: vec4<u32>;
    var local_2: vec4<i32>;
    var local_3: vec4<u32>;
    var x: f32;
    var x_1: f32;
    var x_2: f32;
    var x_3: f32;
    var vyre_lane: u32;
    var x_4: f32;

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
        local_1.x = u32(clamp(_e60, 0f, 4294967000f));
        let _e66 = x;
        local_2.x = i32(clamp(_e66, -2147483600f, 2147483500f));
        let _e72 = x;
        local_3.x = select(0u, 1u, !((_e72 == 0f)));
        let _e80 = (_e37 + 1u);
        let _e85 = local.y;
        x_1 = _e85;
        let _e88 = x_1;
        local_1.y = u32(clamp(_e88, 0f, 4294967000f));
        let _e94 = x_1;
        local_2.y = i32(clamp(_e94, -2147483600f, 2147483500f));
        let _e100 = x_1;
        local_3.y = select(0u, 1u, !((_e100 == 0f)));
        let _e108 = (_e37 + 2u);
        let _e113 = local.z;
        x_2 = _e113;
        let _e116 = x_2;
        local_1.z = u32(clamp(_e116, 0f, 4294967000f));
        let _e122 = x_2;
        local_2.z = i32(clamp(_e122, -2147483600f, 2147483500f));
        let _e128 = x_2;
        local_3.z = select(0u, 1u, !((_e128 == 0f)));
        let _e136 = (_e37 + 3u);
        let _e141 = local.w;
        x_3 = _e141;
        let _e144 = x_3;
        local_1.w = u32(clamp(_e144, 0f, 4294967000f));
        let _e150 = x_3;
        local_2.w = i32(clamp(_e150, -2147483600f, 2147483500f));
        let _e156 = x_3;
        local_3.w = select(0u, 1u, !((_e156 == 0f)));
        let _e163 = local_1;
        as_u32_[_e34] = _e163;
        let _e166 = local_2;
        as_i32_[_e34] = _e166;
        let _e169 = local_3;
        as_bool[_e34] = _e169;
    } else {
        vyre_lane = 0u;
        loop {
            let _e174 = vyre_lane;
            if ((_e174 >= 4u) || (_e174 > _e38)) {
                break;
            }
            let _e179 = (_e37 + _e174);
            let _e183 = (_e179 < 64u);
            let _e185 = select(0u, _e179, _e183);
            let _e192 = input[(_e185 / 4u)][(_e185 % 4u)];
            x_4 = select(0f, _e192, _e183);
            let _e196 = x_4;
            let _e201 = (_e179 < 64u);
            let _e203 = select(0u, _e179, _e201);
            if _e201 {
                as_u32_[(_e203 / 4u)][(_e203 % 4u)] = u32(clamp(_e196, 0f, 4294967000f));
            }
            let _e210 = x_4;
            let _e215 = (_e179 < 64u);
            let _e217 = select(0u, _e179, _e215);
            if _e215 {
                as_i32_[(_e217 / 4u)][(_e217 % 4u)] = i32(clamp(_e210, -2147483600f, 2147483500f));
            }
            let _e224 = x_4;
            let _e228 = (_e179 < 64u);
            let _e230 = select(0u, _e179, _e228);
            if _e228 {
                as_bool[(_e230 / 4u)][(_e230 % 4u)] = select(0u, 1u, !((_e224 == 0f)));
            }
            continuing {
                let _e240 = vyre_lane;
                vyre_lane = (_e240 + 1u);
            }
        }
    }
}
