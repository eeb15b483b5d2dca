@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> as_f32_: array<vec4<f32>>;
@group(0) @binding(3) 
var<storage, read_write> negated: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<u32>;
    var local_2: vec4<f32>;
    var local_3: vec4<u32>;
    var x: bool;
    var x_1: bool;
    var x_2: bool;
    var x_3: bool;
    var vyre_lane: u32;
    var x_4: bool;

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
        x = (_e57 != 0u);
        let _e62 = x;
        local_1.x = select(0u, 1u, _e62);
        let _e67 = x;
        local_2.x = select(0f, 1f, _e67);
        let _e72 = x;
        local_3.x = select(0u, 1u, !(_e72));
        let _e78 = (_e37 + 1u);
        let _e83 = local.y;
        x_1 = (_e83 != 0u);
        let _e88 = x_1;
        local_1.y = select(0u, 1u, _e88);
        let _e93 = x_1;
        local_2.y = select(0f, 1f, _e93);
        let _e98 = x_1;
        local_3.y = select(0u, 1u, !(_e98));
        let _e104 = (_e37 + 2u);
        let _e109 = local.z;
        x_2 = (_e109 != 0u);
        let _e114 = x_2;
        local_1.z = select(0u, 1u, _e114);
        let _e119 = x_2;
        local_2.z = select(0f, 1f, _e119);
        let _e124 = x_2;
        local_3.z = select(0u, 1u, !(_e124));
        let _e130 = (_e37 + 3u);
        let _e135 = local.w;
        x_3 = (_e135 != 0u);
        let _e140 = x_3;
        local_1.w = select(0u, 1u, _e140);
        let _e145 = x_3;
        local_2.w = select(0f, 1f, _e145);
        let _e150 = x_3;
        local_3.w = select(0u, 1u, !(_e150));
        let _e155 = local_1;
        as_u32_[_e34] = _e155;
        let _e158 = local_2;
        as_f32_[_e34] = _e158;
        let _e161 = local_3;
        negated[_e34] = _e161;
    } else {
        vyre_lane = 0u;
        loop {
            let _e166 = vyre_lane;
            if ((_e166 >= 4u) || (_e166 > _e38)) {
                break;
            }
            let _e171 = (_e37 + _e166);
            let _e175 = (_e171 < 64u);
            let _e177 = select(0u, _e171, _e175);
            let _e184 = input[(_e177 / 4u)][(_e177 % 4u)];
            x_4 = select(false, (_e184 != 0u), _e175);
            let _e190 = x_4;
            let _e194 = (_e171 < 64u);
            let _e196 = select(0u, _e171, _e194);
            if _e194 {
                as_u32_[(_e196 / 4u)][(_e196 % 4u)] = select(0u, 1u, _e190);
            }
            let _e203 = x_4;
            let _e207 = (_e171 < 64u);
            let _e209 = select(0u, _e171, _e207);
            if _e207 {
                as_f32_[(_e209 / 4u)][(_e209 % 4u)] = select(0f, 1f, _e203);
            }
            let _e216 = x_4;
            let _e218 = (_e171 < 64u);
            let _e220 = select(0u, _e171, _e218);
            if _e218 {
                negated[(_e220 / 4u)][(_e220 % 4u)] = select(0u, 1u, !(_e216));
            }
            continuing {
                let _e230 = vyre_lane;
                vyre_lane = (_e230 + 1u);
            }
        }
    }
}
