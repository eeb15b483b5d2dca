@group(0) @binding(0) 
var<storage, read_write> x: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage> table: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> odd: array<vec4<u32>>;
@group(0) @binding(3) 
var<storage, read_write> ids: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(8, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<u32>;
    var local_2: vec4<u32>;
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 8u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e32 = (((_e15 - 1u) * 8u) + 7u);
    if (_e18 < ((min(min(_e32, 63u), (_e23 - 1u)) + 1u) >> 2u)) {
        let _e47 = x[_e18];
        local = _e47;
        let i = (_e18 << 2u);
        let _e56 = local.x;
        let _e67 = table[(i % select(16u, 1u, (16u == 0u)))];
        local.x = ((_e56 * 3u) + _e67);
        let _e71 = local.x;
        local_1.x = select(0u, 1u, ((_e71 & 1u) == 1u));
        local_2.x = ((i % 8u) + ((i / 8u) * 100u));
        let i_1 = (i + 1u);
        let _e90 = local.y;
        let _e101 = table[(i_1 % select(16u, 1u, (16u == 0u)))];
        local.y = ((_e90 * 3u) + _e101);
        let _e105 = local.y;
        local_1.y = select(0u, 1u, ((_e105 & 1u) == 1u));
        local_2.y = ((i_1 % 8u) + ((i_1 / 8u) * 100u));
        let i_2 = (i + 2u);
        let _e124 = local.z;
        let _e135 = table[(i_2 % select(16u, 1u, (16u == 0u)))];
        local.z = ((_e124 * 3u) + _e135);
        let _e139 = local.z;
        local_1.z = select(0u, 1u, ((_e139 & 1u) == 1u));
        local_2.z = ((i_2 % 8u) + ((i_2 / 8u) * 100u));
        let i_3 = (i + 3u);
        let _e158 = local.w;
        let _e169 = table[(i_3 % select(16u, 1u, (16u == 0u)))];
        local.w = ((_e158 * 3u) + _e169);
        let _e173 = local.w;
        local_1.w = select(0u, 1u, ((_e173 & 1u) == 1u));
        local_2.w = ((i_3 % 8u) + ((i_3 / 8u) * 100u));
        let _e186 = local;
        x[_e18] = _e186;
        let _e189 = local_1;
        odd[_e18] = _e189;
        let _e192 = local_2;
        ids[_e18] = _e192;
    } else {
        if (_e18 <= (_e32 >> 2u)) {
            let _e196 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e200 = vyre_lane;
                if ((_e200 >= 4u) || (_e200 > (_e32 - _e196))) {
                    break;
                }
                let i_4 = (_e196 + _e200);
                let _e209 = (i_4 < _e23);
                let _e211 = select(0u, i_4, _e209);
                let _e219 = x[(_e211 >> 2u)][(_e211 & 3u)];
                let _e232 = table[(i_4 % select(16u, 1u, (16u == 0u)))];
                let _e234 = (i_4 < _e23);
                let _e236 = select(0u, i_4, _e234);
                if _e234 {
                    x[(_e236 >> 2u)][(_e236 & 3u)] = ((select(0u, _e219, _e209) * 3u) + _e232);
                }
                let _e244 = (i_4 < _e23);
                let _e246 = select(0u, i_4, _e244);
                let _e254 = x[(_e246 >> 2u)][(_e246 & 3u)];
                let _e261 = (i_4 < 64u);
                let _e263 = select(0u, i_4, _e261);
                if _e261 {
                    odd[(_e263 >> 2u)][(_e263 & 3u)] = select(0u, 1u, ((select(0u, _e254, _e244) & 1u) == 1u));
                }
                let _e277 = (i_4 < 64u);
                let _e279 = select(0u, i_4, _e277);
                if _e277 {
                    ids[(_e279 >> 2u)][(_e279 & 3u)] = ((i_4 % 8u) + ((i_4 / 8u) * 100u));
                }
                continuing {
                    let _e287 = vyre_lane;
                    vyre_lane = (_e287 + 1u);
                }
            }
        }
    }
}
