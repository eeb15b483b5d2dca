@group(0) @binding(0) 
var<storage> a: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage> b: array<vec4<u32>>;
@group(0) @binding(2) 
var<storage, read_write> out: array<vec4<u32>>;
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
    if ((_e37 >= 3u) && (_e36 < 1021u)) {
        let _e46 = a[_e33];
        local = _e46;
        let _e50 = b[_e33];
        local_1 = _e50;
        let _e53 = (_e36 + 0u);
        let _e59 = local.x;
        let _e61 = local_1.x;
        local_2.x = (_e59 + _e61);
        let _e64 = (_e36 + 1u);
        let _e70 = local.y;
        let _e72 = local_1.y;
        local_2.y = (_e70 + _e72);
        let _e75 = (_e36 + 2u);
        let _e81 = local.z;
        let _e83 = local_1.z;
        local_2.z = (_e81 + _e83);
        let _e86 = (_e36 + 3u);
        let _e92 = local.w;
        let _e94 = local_1.w;
        local_2.w = (_e92 + _e94);
        let _e96 = local_2;
        out[_e33] = _e96;
    } else {
        vyre_lane = 0u;
        loop {
            let _e101 = vyre_lane;
            if ((_e101 >= 4u) || (_e101 > _e37)) {
                break;
            }
            let _e106 = (_e36 + _e101);
            let _e110 = (_e106 < 1024u);
            let _e112 = select(0u, _e106, _e110);
            let _e119 = a[(_e112 / 4u)][(_e112 % 4u)];
            let _e122 = (_e106 < 1024u);
            let _e124 = select(0u, _e106, _e122);
            let _e131 = b[(_e124 / 4u)][(_e124 % 4u)];
            let _e135 = (_e106 < 1024u);
            let _e137 = select(0u, _e106, _e135);
            if _e135 {
                out[(_e137 / 4u)][(_e137 % 4u)] = (select(0u, _e119, _e110) + select(0u, _e131, _e122));
            }
            continuing {
                let _e144 = vyre_lane;
                vyre_lane = (_e144 + 1u);
            }
        }
    }
}
