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
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e28 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e28, 999u) + 1u) >> 2u)) {
        let _e39 = input[_e18];
        local_1 = false;
        local_2 = false;
        local_3 = false;
        local_4 = false;
        let _e50 = (_e18 << 2u);
        if (_e50 < 1000u) {
            local.x = (_e39.x + 1u);
            local_1 = true;
        }
        if ((_e50 + 1u) < 1000u) {
            local.y = (_e39.y + 1u);
            local_2 = true;
        }
        if ((_e50 + 2u) < 1000u) {
            local.z = (_e39.z + 1u);
            local_3 = true;
        }
        if ((_e50 + 3u) < 1000u) {
            local.w = (_e39.w + 1u);
            local_4 = true;
        }
        let _e85 = local_1;
        let _e86 = local_2;
        let _e87 = local_3;
        let _e88 = local_4;
        if ((_e85 && _e86) && (_e87 && _e88)) {
            let _e92 = local;
            out[_e18] = _e92;
        } else {
            if _e85 {
                let _e96 = local.x;
                out[_e18].x = _e96;
            }
            if _e86 {
                let _e101 = local.y;
                out[_e18].y = _e101;
            }
            if _e87 {
                let _e106 = local.z;
                out[_e18].z = _e106;
            }
            if _e88 {
                let _e111 = local.w;
                out[_e18].w = _e111;
            }
        }
    } else {
        if (_e18 <= (_e28 >> 2u)) {
            let _e116 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e120 = vyre_lane;
                if ((_e120 >= 4u) || (_e120 > (_e28 - _e116))) {
                    break;
                }
                let _e125 = (_e116 + _e120);
                if (_e125 < 1000u) {
                    let _e135 = input[(_e125 >> 2u)][(_e125 & 3u)];
                    out[(_e125 >> 2u)][(_e125 & 3u)] = (_e135 + 1u);
                }
                continuing {
                    let _e145 = vyre_lane;
                    vyre_lane = (_e145 + 1u);
                }
            }
        }
    }
}
