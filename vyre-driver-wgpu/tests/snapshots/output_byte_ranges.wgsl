@group(0) @binding(0) 
var<storage> input: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> head: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> tail: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<u32>;
    var local_2: vec4<u32>;
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
        let _e50 = (_e36 + 0u);
        let _e56 = local.x;
        local_1.x = _e56;
        let _e59 = local.x;
        local_2.x = ~(_e59);
        let _e62 = (_e36 + 1u);
        let _e68 = local.y;
        local_1.y = _e68;
        let _e71 = local.y;
        local_2.y = ~(_e71);
        let _e74 = (_e36 + 2u);
        let _e80 = local.z;
        local_1.z = _e80;
        let _e83 = local.z;
        local_2.z = ~(_e83);
        let _e86 = (_e36 + 3u);
        let _e92 = local.w;
        local_1.w = _e92;
        let _e95 = local.w;
        local_2.w = ~(_e95);
        let _e97 = local_1;
        head[_e33] = _e97;
        let _e100 = local_2;
        tail[_e33] = _e100;
    } else {
        vyre_lane = 0u;
        loop {
            let _e105 = vyre_lane;
            if ((_e105 >= 4u) || (_e105 > _e37)) {
                break;
            }
            let _e110 = (_e36 + _e105);
            let _e114 = (_e110 < 64u);
            let _e116 = select(0u, _e110, _e114);
            let _e123 = input[(_e116 / 4u)][(_e116 % 4u)];
            let _e126 = (_e110 < 64u);
            let _e128 = select(0u, _e110, _e126);
            if _e126 {
                head[(_e128 / 4u)][(_e128 % 4u)] = select(0u, _e123, _e114);
            }
            let _e135 = (_e110 < 64u);
            let _e137 = select(0u, _e110, _e135);
            let _e144 = input[(_e137 / 4u)][(_e137 % 4u)];
            let _e148 = (_e110 < 64u);
            let _e150 = select(0u, _e110, _e148);
            if _e148 {
                tail[(_e150 / 4u)][(_e150 % 4u)] = ~(select(0u, _e144, _e135));
            }
            continuing {
                let _e157 = vyre_lane;
                vyre_lane = (_e157 + 1u);
            }
        }
    }
}
