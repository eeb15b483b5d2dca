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

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 8u) + vyre_local_id.x);
    let _e23 = vyre_params[8u];
    let _e32 = (((_e15 - 1u) * 8u) + 7u);
    if (_e18 < ((min(min(_e32, 63u), (_e23 - 1u)) + 1u) >> 2u)) {
        let _e46 = x[_e18];
        local = _e46;
        let i = (_e18 << 2u);
        let _e55 = local.x;
        let _e62 = table[(i & 15u)];
        local.x = ((_e55 * 3u) + _e62);
        let _e66 = local.x;
        local_1.x = select(0u, 1u, ((_e66 & 1u) == 1u));
        local_2.x = ((i % 8u) + ((i / 8u) * 100u));
        let i_1 = (i + 1u);
        let _e85 = local.y;
        let _e92 = table[(i_1 & 15u)];
        local.y = ((_e85 * 3u) + _e92);
        let _e96 = local.y;
        local_1.y = select(0u, 1u, ((_e96 & 1u) == 1u));
        local_2.y = ((i_1 % 8u) + ((i_1 / 8u) * 100u));
        let i_2 = (i + 2u);
        let _e115 = local.z;
        let _e122 = table[(i_2 & 15u)];
        local.z = ((_e115 * 3u) + _e122);
        let _e126 = local.z;
        local_1.z = select(0u, 1u, ((_e126 & 1u) == 1u));
        local_2.z = ((i_2 % 8u) + ((i_2 / 8u) * 100u));
        let i_3 = (i + 3u);
        let _e145 = local.w;
        let _e152 = table[(i_3 & 15u)];
        local.w = ((_e145 * 3u) + _e152);
        let _e156 = local.w;
        local_1.w = select(0u, 1u, ((_e156 & 1u) == 1u));
        local_2.w = ((i_3 % 8u) + ((i_3 / 8u) * 100u));
        let _e169 = local;
        x[_e18] = _e169;
        let _e172 = local_1;
        odd[_e18] = _e172;
        let _e175 = local_2;
        ids[_e18] = _e175;
    }
}

@compute @workgroup_size(8, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e23 = vyre_params[8u];
    let _e32 = (((_e15 - 1u) * 8u) + 7u);
    let _e42 = (((min(min(_e32, 63u), (_e23 - 1u)) + 1u) >> 2u) + ((vyre_workgroup_id_1.x * 8u) + vyre_local_id_1.x));
    if (_e42 <= (_e32 >> 2u)) {
        let _e45 = (_e42 << 2u);
        vyre_lane = 0u;
        loop {
            let _e49 = vyre_lane;
            if ((_e49 >= 4u) || (_e49 > (_e32 - _e45))) {
                break;
            }
            let i_4 = (_e45 + _e49);
            let _e58 = (i_4 < _e23);
            let _e60 = select(0u, i_4, _e58);
            let _e68 = x[(_e60 >> 2u)][(_e60 & 3u)];
            let _e77 = table[(i_4 & 15u)];
            let _e79 = (i_4 < _e23);
            let _e81 = select(0u, i_4, _e79);
            if _e79 {
                x[(_e81 >> 2u)][(_e81 & 3u)] = ((select(0u, _e68, _e58) * 3u) + _e77);
            }
            let _e89 = (i_4 < _e23);
            let _e91 = select(0u, i_4, _e89);
            let _e99 = x[(_e91 >> 2u)][(_e91 & 3u)];
            let _e106 = (i_4 < 64u);
            let _e108 = select(0u, i_4, _e106);
            if _e106 {
                odd[(_e108 >> 2u)][(_e108 & 3u)] = select(0u, 1u, ((select(0u, _e99, _e89) & 1u) == 1u));
            }
            let _e122 = (i_4 < 64u);
            let _e124 = select(0u, i_4, _e122);
            if _e122 {
                ids[(_e124 >> 2u)][(_e124 & 3u)] = ((i_4 % 8u) + ((i_4 / 8u) * 100u));
            }
            continuing {
                let _e132 = vyre_lane;
                vyre_lane = (_e132 + 1u);
            }
        }
    }
}
