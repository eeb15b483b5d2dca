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
    let _e19 = (vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z))));
    if (_e19 > ((_e15 - 1u) >> 2u)) {
        return;
    }
    let _e27 = ((_e19 * 64u) + vyre_local_id.x);
    let _e38 = (((_e15 - 1u) * 64u) + 63u);
    if (_e27 < ((min(_e38, 1023u) + 1u) >> 2u)) {
        let _e49 = a[_e27];
        let _e52 = b[_e27];
        let _e55 = (_e27 << 2u);
        local.x = (_e49.x + _e52.x);
        local.y = (_e49.y + _e52.y);
        local.z = (_e49.z + _e52.z);
        local.w = (_e49.w + _e52.w);
        let _e78 = local;
        out[_e27] = _e78;
    } else {
        if (_e27 <= (_e38 >> 2u)) {
            let _e82 = (_e27 << 2u);
            vyre_lane = 0u;
            loop {
                let _e86 = vyre_lane;
                if ((_e86 >= 4u) || (_e86 > (_e38 - _e82))) {
                    break;
                }
                let _e91 = (_e82 + _e86);
                let _e92 = (_e91 < 1024u);
                let _e94 = select(0u, _e91, _e92);
                let _e102 = a[(_e94 >> 2u)][(_e94 & 3u)];
                let _e105 = (_e91 < 1024u);
                let _e107 = select(0u, _e91, _e105);
                let _e115 = b[(_e107 >> 2u)][(_e107 & 3u)];
                let _e119 = (_e91 < 1024u);
                let _e121 = select(0u, _e91, _e119);
                if _e119 {
                    out[(_e121 >> 2u)][(_e121 & 3u)] = (select(0u, _e102, _e92) + select(0u, _e115, _e105));
                }
                continuing {
                    let _e129 = vyre_lane;
                    vyre_lane = (_e129 + 1u);
                }
            }
        }
    }
}
