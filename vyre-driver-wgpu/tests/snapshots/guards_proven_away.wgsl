@group(0) @binding(0) 
var<storage> data: array<u32>;
@group(0) @binding(1) 
var<storage> table: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
var<workgroup> scratch: array<u32, 64>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var i: u32;
    var acc: u32;
    var k: u32;

    let _e24 = vyre_params[8u];
    i = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e32 = table[15u];
    acc = _e32;
    k = 0u;
    loop {
        let _e37 = k;
        if !((_e37 < 16u)) {
            break;
        }
        let _e40 = acc;
        let _e41 = k;
        let _e44 = table[_e41];
        acc = (_e40 + _e44);
        continuing {
            let _e46 = k;
            k = (_e46 + 1u);
        }
    }
    let _e49 = acc;
    scratch[vyre_local_id.x] = _e49;
    let _e52 = i;
    if (_e52 < _e24) {
        let _e54 = i;
        if (_e54 < 64u) {
            let _e57 = i;
            let _e58 = i;
            let _e61 = data[_e58];
            let _e64 = scratch[vyre_local_id.x];
            out[_e57] = (_e61 + _e64);
        }
    }
    let _e68 = i;
    let _e70 = (_e68 + 1u);
    let _e72 = (_e70 < 64u);
    if _e72 {
        out[select(0u, _e70, _e72)] = 0u;
    }
}
