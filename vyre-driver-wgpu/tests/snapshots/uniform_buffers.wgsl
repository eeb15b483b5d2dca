@group(0) @binding(0) 
var<uniform> scale: array<vec4<f32>, 2>;
@group(0) @binding(1) 
var<storage> input: array<vec4<f32>>;
@group(0) @binding(2) 
var<storage, read_write> out: array<vec4<f32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<f32>;
    var local_1: vec4<f32>;
    var vyre_lane: u32;

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
        let _e49 = (_e36 + 0u);
        let _e55 = local.x;
        let _e63 = scale[(0u / 4u)][(0u % 4u)];
        let _e69 = (_e49 % select(6u, 1u, (6u == 0u)));
        let _e76 = scale[(_e69 / 4u)][(_e69 % 4u)];
        local_1.x = fma(_e55, _e63, _e76);
        let _e79 = (_e36 + 1u);
        let _e85 = local.y;
        let _e93 = scale[(0u / 4u)][(0u % 4u)];
        let _e99 = (_e79 % select(6u, 1u, (6u == 0u)));
        let _e106 = scale[(_e99 / 4u)][(_e99 % 4u)];
        local_1.y = fma(_e85, _e93, _e106);
        let _e109 = (_e36 + 2u);
        let _e115 = local.z;
        let _e123 = scale[(0u / 4u)][(0u % 4u)];
        let _e129 = (_e109 % select(6u, 1u, (6u == 0u)));
        let _e136 = scale[(_e129 / 4u)][(_e129 % 4u)];
        local_1.z = fma(_e115, _e123, _e136);
        let _e139 = (_e36 + 3u);
        let _e145 = local.w;
        let _e153 = scale[(0u / 4u)][(0u % 4u)];
        let _e159 = (_e139 % select(6u, 1u, (6u == 0u)));
        let _e166 = scale[(_e159 / 4u)][(_e159 % 4u)];
        local_1.w = fma(_e145, _e153, _e166);
        let _e168 = local_1;
        out[_e33] = _e168;
    } else {
        vyre_lane = 0u;
        loop {
            let _e173 = vyre_lane;
            if ((_e173 >= 4u) || (_e173 > _e37)) {
                break;
            }
            let _e178 = (_e36 + _e173);
            let _e182 = (_e178 < 64u);
            let _e184 = select(0u, _e178, _e182);
            let _e191 = input[(_e184 / 4u)][(_e184 % 4u)];
            let _e201 = scale[(0u / 4u)][(0u % 4u)];
            let _e207 = (_e178 % select(6u, 1u, (6u == 0u)));
            let _e214 = scale[(_e207 / 4u)][(_e207 % 4u)];
            let _e216 = (_e178 < 64u);
            let _e218 = select(0u, _e178, _e216);
            if _e216 {
                out[(_e218 / 4u)][(_e218 % 4u)] = fma(select(0f, _e191, _e182), _e201, _e214);
            }
            continuing {
                let _e225 = vyre_lane;
                vyre_lane = (_e225 + 1u);
            }
        }
    }
}
