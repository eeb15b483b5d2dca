@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(256, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var vyre_lane: u32;

    let _e15 = vyre_params[0u];
    let _e18 = vyre_params[1u];
    let _e21 = vyre_params[2u];
    let _e24 = vyre_params[3u];
    let _e28 = (vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z))));
    let _e29 = (_e15 * _e18);
    if (_e28 >= ((_e29 * _e21) * _e24)) {
        return;
    }
    let _e33 = (_e28 % _e15);
    let _e42 = ((((_e28 / _e15) % _e18) * 1u) + vyre_local_id.y);
    let _e48 = vyre_params[8u];
    let _e56 = (((_e15 - 1u) * 256u) + 255u);
    let _e58 = ((_e33 * 256u) + vyre_local_id.x);
    if (_e58 > (_e56 / 4u)) {
        return;
    }
    let _e61 = (_e58 * 4u);
    let _e62 = (_e56 - _e61);
    if ((_e62 >= 3u) && (_e61 < 33554429u)) {
        let _e70 = (_e61 + 0u);
        let _e75 = (_e70 < _e48);
        let _e80 = a[select(0u, _e70, _e75)];
        local.x = (select(0u, _e80, _e75) + _e42);
        let _e85 = (_e61 + 1u);
        let _e90 = (_e85 < _e48);
        let _e95 = a[select(0u, _e85, _e90)];
        local.y = (select(0u, _e95, _e90) + _e42);
        let _e100 = (_e61 + 2u);
        let _e105 = (_e100 < _e48);
        let _e110 = a[select(0u, _e100, _e105)];
        local.z = (select(0u, _e110, _e105) + _e42);
        let _e115 = (_e61 + 3u);
        let _e120 = (_e115 < _e48);
        let _e125 = a[select(0u, _e115, _e120)];
        local.w = (select(0u, _e125, _e120) + _e42);
        let _e129 = local;
        out[_e58] = _e129;
    } else {
        vyre_lane = 0u;
        loop {
            let _e134 = vyre_lane;
            if ((_e134 >= 4u) || (_e134 > _e62)) {
                break;
            }
            let _e139 = (_e61 + _e134);
            let _e143 = (_e139 < _e48);
            let _e148 = a[select(0u, _e139, _e143)];
            let _e152 = (_e139 < 33554432u);
            let _e154 = select(0u, _e139, _e152);
            if _e152 {
                out[(_e154 / 4u)][(_e154 % 4u)] = (select(0u, _e148, _e143) + _e42);
            }
            continuing {
                let _e161 = vyre_lane;
                vyre_lane = (_e161 + 1u);
            }
        }
    }
}
