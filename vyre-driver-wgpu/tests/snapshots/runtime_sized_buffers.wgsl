@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> scratch: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<vec4<u32>>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var local: vec4<u32>;
    var vyre_lane: u32;

    let _e24 = vyre_params[8u];
    let _e27 = vyre_params[9u];
    let _e35 = (((vyre_num_workgroups.x - 1u) * 64u) + 63u);
    let _e37 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    if (_e37 > (_e35 / 4u)) {
        return;
    }
    let _e40 = (_e37 * 4u);
    let _e41 = (_e35 - _e40);
    if ((_e41 >= 3u) && (_e40 < 61u)) {
        let _e49 = (_e40 + 0u);
        let _e53 = (_e49 < _e27);
        if _e53 {
            scratch[select(0u, _e49, _e53)] = _e24;
        }
        let _e59 = (_e49 < _e24);
        let _e64 = input[select(0u, _e49, _e59)];
        let _e67 = (_e49 < _e27);
        let _e72 = scratch[select(0u, _e49, _e67)];
        local.x = (select(0u, _e64, _e59) + select(0u, _e72, _e67));
        let _e77 = (_e40 + 1u);
        let _e81 = (_e77 < _e27);
        if _e81 {
            scratch[select(0u, _e77, _e81)] = _e24;
        }
        let _e87 = (_e77 < _e24);
        let _e92 = input[select(0u, _e77, _e87)];
        let _e95 = (_e77 < _e27);
        let _e100 = scratch[select(0u, _e77, _e95)];
        local.y = (select(0u, _e92, _e87) + select(0u, _e100, _e95));
        let _e105 = (_e40 + 2u);
        let _e109 = (_e105 < _e27);
        if _e109 {
            scratch[select(0u, _e105, _e109)] = _e24;
        }
        let _e115 = (_e105 < _e24);
        let _e120 = input[select(0u, _e105, _e115)];
        let _e123 = (_e105 < _e27);
        let _e128 = scratch[select(0u, _e105, _e123)];
        local.z = (select(0u, _e120, _e115) + select(0u, _e128, _e123));
        let _e133 = (_e40 + 3u);
        let _e137 = (_e133 < _e27);
        if _e137 {
            scratch[select(0u, _e133, _e137)] = _e24;
        }
        let _e143 = (_e133 < _e24);
        let _e148 = input[select(0u, _e133, _e143)];
        let _e151 = (_e133 < _e27);
        let _e156 = scratch[select(0u, _e133, _e151)];
        local.w = (select(0u, _e148, _e143) + select(0u, _e156, _e151));
        let _e160 = local;
        out[_e37] = _e160;
    } else {
        vyre_lane = 0u;
        loop {
            let _e165 = vyre_lane;
            if ((_e165 >= 4u) || (_e165 > _e41)) {
                break;
            }
            let _e170 = (_e40 + _e165);
            let _e174 = (_e170 < _e27);
            if _e174 {
                scratch[select(0u, _e170, _e174)] = _e24;
            }
            let _e179 = (_e170 < _e24);
            let _e184 = input[select(0u, _e170, _e179)];
            let _e187 = (_e170 < _e27);
            let _e192 = scratch[select(0u, _e170, _e187)];
            let _e196 = (_e170 < 64u);
            let _e198 = select(0u, _e170, _e196);
            if _e196 {
                out[(_e198 / 4u)][(_e198 % 4u)] = (select(0u, _e184, _e179) + select(0u, _e192, _e187));
            }
            continuing {
                let _e205 = vyre_lane;
                vyre_lane = (_e205 + 1u);
            }
        }
    }
}
