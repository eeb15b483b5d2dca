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
    var i: u32;
    var i_1: u32;
    var i_2: u32;
    var i_3: u32;
    var vyre_lane: u32;
    var i_4: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 8u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e32 = (((_e15 - 1u) * 8u) + 7u);
    if (_e18 < ((min(min(_e32, 63u), (_e23 - 1u)) + 1u) >> 2u)) {
        let _e47 = x[_e18];
        local = _e47;
        let _e51 = (_e18 << 2u);
        i = _e51;
        let _e57 = local.x;
        let _e60 = i;
        let _e69 = table[(_e60 % select(16u, 1u, (16u == 0u)))];
        local.x = ((_e57 * 3u) + _e69);
        let _e73 = local.x;
        local_1.x = select(0u, 1u, ((_e73 & 1u) == 1u));
        local_2.x = ((_e51 % 8u) + ((_e51 / 8u) * 100u));
        let _e87 = (_e51 + 1u);
        i_1 = _e87;
        let _e93 = local.y;
        let _e96 = i_1;
        let _e105 = table[(_e96 % select(16u, 1u, (16u == 0u)))];
        local.y = ((_e93 * 3u) + _e105);
        let _e109 = local.y;
        local_1.y = select(0u, 1u, ((_e109 & 1u) == 1u));
        local_2.y = ((_e87 % 8u) + ((_e87 / 8u) * 100u));
        let _e123 = (_e51 + 2u);
        i_2 = _e123;
        let _e129 = local.z;
        let _e132 = i_2;
        let _e141 = table[(_e132 % select(16u, 1u, (16u == 0u)))];
        local.z = ((_e129 * 3u) + _e141);
        let _e145 = local.z;
        local_1.z = select(0u, 1u, ((_e145 & 1u) == 1u));
        local_2.z = ((_e123 % 8u) + ((_e123 / 8u) * 100u));
        let _e159 = (_e51 + 3u);
        i_3 = _e159;
        let _e165 = local.w;
        let _e168 = i_3;
        let _e177 = table[(_e168 % select(16u, 1u, (16u == 0u)))];
        local.w = ((_e165 * 3u) + _e177);
        let _e181 = local.w;
        local_1.w = select(0u, 1u, ((_e181 & 1u) == 1u));
        local_2.w = ((_e159 % 8u) + ((_e159 / 8u) * 100u));
        let _e194 = local;
        x[_e18] = _e194;
        let _e197 = local_1;
        odd[_e18] = _e197;
        let _e200 = local_2;
        ids[_e18] = _e200;
    } else {
        if (_e18 <= (_e32 >> 2u)) {
            let _e204 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e208 = vyre_lane;
                if ((_e208 >= 4u) || (_e208 > (_e32 - _e204))) {
                    break;
                }
                let _e213 = (_e204 + _e208);
                i_4 = _e213;
                let _e218 = i_4;
                let _e219 = i_4;
                let _e220 = (_e219 < _e23);
                let _e222 = select(0u, _e219, _e220);
                let _e230 = x[(_e222 >> 2u)][(_e222 & 3u)];
                let _e235 = i_4;
                let _e244 = table[(_e235 % select(16u, 1u, (16u == 0u)))];
                let _e246 = (_e218 < _e23);
                let _e248 = select(0u, _e218, _e246);
                if _e246 {
                    x[(_e248 >> 2u)][(_e248 & 3u)] = ((select(0u, _e230, _e220) * 3u) + _e244);
                }
                let _e256 = i_4;
                let _e257 = i_4;
                let _e258 = (_e257 < _e23);
                let _e260 = select(0u, _e257, _e258);
                let _e268 = x[(_e260 >> 2u)][(_e260 & 3u)];
                let _e275 = (_e256 < 64u);
                let _e277 = select(0u, _e256, _e275);
                if _e275 {
                    odd[(_e277 >> 2u)][(_e277 & 3u)] = select(0u, 1u, ((select(0u, _e268, _e258) & 1u) == 1u));
                }
                let _e288 = i_4;
                let _e292 = (_e288 < 64u);
                let _e294 = select(0u, _e288, _e292);
                if _e292 {
                    ids[(_e294 >> 2u)][(_e294 & 3u)] = ((_e213 % 8u) + ((_e213 / 8u) * 100u));
                }
                continuing {
                    let _e302 = vyre_lane;
                    vyre_lane = (_e302 + 1u);
                }
            }
        }
    }
}
