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
        let _e66 = table[(i % select(16u, 1u, (16u == 0u)))];
        local.x = ((_e55 * 3u) + _e66);
        let _e70 = local.x;
        local_1.x = select(0u, 1u, ((_e70 & 1u) == 1u));
        local_2.x = ((i % 8u) + ((i / 8u) * 100u));
        let i_1 = (i + 1u);
        let _e89 = local.y;
        let _e100 = table[(i_1 % select(16u, 1u, (16u == 0u)))];
        local.y = ((_e89 * 3u) + _e100);
        let _e104 = local.y;
        local_1.y = select(0u, 1u, ((_e104 & 1u) == 1u));
        local_2.y = ((i_1 % 8u) + ((i_1 / 8u) * 100u));
        let i_2 = (i + 2u);
        let _e123 = local.z;
        let _e134 = table[(i_2 % select(16u, 1u, (16u == 0u)))];
        local.z = ((_e123 * 3u) + _e134);
        let _e138 = local.z;
        local_1.z = select(0u, 1u, ((_e138 & 1u) == 1u));
        local_2.z = ((i_2 % 8u) + ((i_2 / 8u) * 100u));
        let i_3 = (i + 3u);
        let _e157 = local.w;
        let _e168 = table[(i_3 % select(16u, 1u, (16u == 0u)))];
        local.w = ((_e157 * 3u) + _e168);
        let _e172 = local.w;
        local_1.w = select(0u, 1u, ((_e172 & 1u) == 1u));
        local_2.w = ((i_3 % 8u) + ((i_3 / 8u) * 100u));
        let _e185 = local;
        x[_e18] = _e185;
        let _e188 = local_1;
        odd[_e18] = _e188;
        let _e191 = local_2;
        ids[_e18] = _e191;
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
            let _e81 = table[(i_4 % select(16u, 1u, (16u == 0u)))];
            let _e83 = (i_4 < _e23);
            let _e85 = select(0u, i_4, _e83);
            if _e83 {
                x[(_e85 >> 2u)][(_e85 & 3u)] = ((select(0u, _e68, _e58) * 3u) + _e81);
            }
            let _e93 = (i_4 < _e23);
            let _e95 = select(0u, i_4, _e93);
            let _e103 = x[(_e95 >> 2u)][(_e95 & 3u)];
            let _e110 = (i_4 < 64u);
            let _e112 = select(0u, i_4, _e110);
            if _e110 {
                odd[(_e112 >> 2u)][(_e112 & 3u)] = select(0u, 1u, ((select(0u, _e103, _e93) & 1u) == 1u));
            }
            let _e126 = (i_4 < 64u);
            let _e128 = select(0u, i_4, _e126);
            if _e126 {
                ids[(_e128 >> 2u)][(_e128 & 3u)] = ((i_4 % 8u) + ((i_4 / 8u) * 100u));
            }
            continuing {
                let _e136 = vyre_lane;
                vyre_lane = (_e136 + 1u);
            }
        }
    }
}
