@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: bool;
    var local_2: bool;
    var local_3: bool;
    var local_4: bool;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e28, 999u) + 1u) >> 2u)) {
        let _e38 = input[_e18];
        local_1 = false;
        local_2 = false;
        local_3 = false;
        local_4 = false;
        let _e49 = (_e18 << 2u);
        if (_e49 < 1000u) {
            local.x = (_e38.x + 1u);
            local_1 = true;
        }
        if ((_e49 + 1u) < 1000u) {
            local.y = (_e38.y + 1u);
            local_2 = true;
        }
        if ((_e49 + 2u) < 1000u) {
            local.z = (_e38.z + 1u);
            local_3 = true;
        }
        if ((_e49 + 3u) < 1000u) {
            local.w = (_e38.w + 1u);
            local_4 = true;
        }
        let _e84 = local_1;
        let _e85 = local_2;
        let _e86 = local_3;
        let _e87 = local_4;
        if ((_e84 && _e85) && (_e86 && _e87)) {
            let _e91 = local;
            out[_e18] = _e91;
        } else {
            if _e84 {
                let _e95 = local.x;
                out[_e18].x = _e95;
            }
            if _e85 {
                let _e100 = local.y;
                out[_e18].y = _e100;
            }
            if _e86 {
                let _e105 = local.z;
                out[_e18].z = _e105;
            }
            if _e87 {
                let _e110 = local.w;
                out[_e18].w = _e110;
            }
        }
    }
}

@compute @workgroup_size(64, 1, 1) 
fn vyre_tail(@builtin(workgroup_id) vyre_workgroup_id_1: vec3<u32>, @builtin(local_invocation_id) vyre_local_id_1: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups_1: vec3<u32>) {
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    let _e35 = (((min(_e28, 999u) + 1u) >> 2u) + ((vyre_workgroup_id_1.x * 64u) + vyre_local_id_1.x));
    if (_e35 <= (_e28 >> 2u)) {
        let _e38 = (_e35 << 2u);
        vyre_lane = 0u;
        loop {
            let _e42 = vyre_lane;
            if ((_e42 >= 4u) || (_e42 > (_e28 - _e38))) {
                break;
            }
            let _e47 = (_e38 + _e42);
            if (_e47 < 1000u) {
                let _e57 = input[(_e47 >> 2u)][(_e47 & 3u)];
                out[(_e47 >> 2u)][(_e47 & 3u)] = (_e57 + 1u);
            }
            continuing {
                let _e67 = vyre_lane;
                vyre_lane = (_e67 + 1u);
            }
        }
    }
}
