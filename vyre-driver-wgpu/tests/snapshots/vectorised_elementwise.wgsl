@group(0) @binding(0) 
var<storage> a: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage> any_: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var local_1: vec4<u32>;
    var i: u32;
    var x: u32;
    var i_1: u32;
    var x_1: u32;
    var i_2: u32;
    var x_2: u32;
    var i_3: u32;
    var x_3: u32;
    var vyre_lane: u32;
    var i_4: u32;
    var x_4: u32;

    let _e25 = vyre_params[9u];
    let _e33 = (((vyre_num_workgroups.x - 1u) * 64u) + 63u);
    let _e35 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    if (_e35 > (_e33 / 4u)) {
        return;
    }
    let _e38 = (_e35 * 4u);
    let _e39 = (_e33 - _e38);
    if ((_e39 >= 3u) && (_e38 < 61u)) {
        let _e48 = a[_e35];
        local = _e48;
        let _e52 = out[_e35];
        local_1 = _e52;
        let _e54 = (_e38 + 0u);
        i = _e54;
        let _e60 = local.x;
        let _e61 = i;
        let _e62 = (_e61 < _e25);
        let _e67 = any_[select(0u, _e61, _e62)];
        x = (_e60 + select(0u, _e67, _e62));
        let _e72 = x;
        if (_e72 != 0u) {
            let _e76 = x;
            local_1.x = _e76;
        }
        let _e78 = (_e38 + 1u);
        i_1 = _e78;
        let _e84 = local.y;
        let _e85 = i_1;
        let _e86 = (_e85 < _e25);
        let _e91 = any_[select(0u, _e85, _e86)];
        x_1 = (_e84 + select(0u, _e91, _e86));
        let _e96 = x_1;
        if (_e96 != 0u) {
            let _e100 = x_1;
            local_1.y = _e100;
        }
        let _e102 = (_e38 + 2u);
        i_2 = _e102;
        let _e108 = local.z;
        let _e109 = i_2;
        let _e110 = (_e109 < _e25);
        let _e115 = any_[select(0u, _e109, _e110)];
        x_2 = (_e108 + select(0u, _e115, _e110));
        let _e120 = x_2;
        if (_e120 != 0u) {
            let _e124 = x_2;
            local_1.z = _e124;
        }
        let _e126 = (_e38 + 3u);
        i_3 = _e126;
        let _e132 = local.w;
        let _e133 = i_3;
        let _e134 = (_e133 < _e25);
        let _e139 = any_[select(0u, _e133, _e134)];
        x_3 = (_e132 + select(0u, _e139, _e134));
        let _e144 = x_3;
        if (_e144 != 0u) {
            let _e148 = x_3;
            local_1.w = _e148;
        }
        let _e149 = local_1;
        out[_e35] = _e149;
    } else {
        vyre_lane = 0u;
        loop {
            let _e154 = vyre_lane;
            if ((_e154 >= 4u) || (_e154 > _e39)) {
                break;
            }
            let _e159 = (_e38 + _e154);
            i_4 = _e159;
            let _e164 = i_4;
            let _e165 = (_e164 < 64u);
            let _e167 = select(0u, _e164, _e165);
            let _e174 = a[(_e167 / 4u)][(_e167 % 4u)];
            let _e177 = i_4;
            let _e178 = (_e177 < _e25);
            let _e183 = any_[select(0u, _e177, _e178)];
            x_4 = (select(0u, _e174, _e165) + select(0u, _e183, _e178));
            let _e188 = x_4;
            if (_e188 != 0u) {
                let _e191 = i_4;
                let _e192 = x_4;
                let _e193 = (_e191 < 64u);
                let _e195 = select(0u, _e191, _e193);
                if _e193 {
                    out[(_e195 / 4u)][(_e195 % 4u)] = _e192;
                }
            }
            continuing {
                let _e202 = vyre_lane;
                vyre_lane = (_e202 + 1u);
            }
        }
    }
}
