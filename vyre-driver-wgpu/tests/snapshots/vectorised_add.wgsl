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
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e18 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e29 = (((_e15 - 1u) * 64u) + 63u);
    if (_e18 < ((min(_e29, 1023u) + 1u) >> 2u)) {
        let _e40 = a[_e18];
        let _e43 = b[_e18];
        let _e46 = (_e18 << 2u);
        local.x = (_e40.x + _e43.x);
        local.y = (_e40.y + _e43.y);
        local.z = (_e40.z + _e43.z);
        local.w = (_e40.w + _e43.w);
        let _e69 = local;
        out[_e18] = _e69;
    } else {
        if (_e18 <= (_e29 >> 2u)) {
            let _e73 = (_e18 << 2u);
            vyre_lane = 0u;
            loop {
                let _e77 = vyre_lane;
                if ((_e77 >= 4u) || (_e77 > (_e29 - _e73))) {
                    break;
                }
                let _e82 = (_e73 + _e77);
                let _e83 = (_e82 < 1024u);
                let _e85 = select(0u, _e82, _e83);
                let _e93 = a[(_e85 >> 2u)][(_e85 & 3u)];
                let _e96 = (_e82 < 1024u);
                let _e98 = select(0u, _e82, _e96);
                let _e106 = b[(_e98 >> 2u)][(_e98 & 3u)];
                let _e110 = (_e82 < 1024u);
                let _e112 = select(0u, _e82, _e110);
                if _e110 {
                    out[(_e112 >> 2u)][(_e112 & 3u)] = (select(0u, _e93, _e83) + select(0u, _e106, _e96));
                }
                continuing {
                    let _e120 = vyre_lane;
                    vyre_lane = (_e120 + 1u);
                }
            }
        }
    }
}
