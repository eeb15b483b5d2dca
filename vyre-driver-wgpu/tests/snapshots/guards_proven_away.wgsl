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
    var acc: u32;
    var k: u32;

    let i = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = vyre_params[8u];
    let _e31 = table[15u];
    acc = _e31;
    k = 0u;
    loop {
        let _e36 = k;
        if !((_e36 < 16u)) {
            break;
        }
        let _e39 = acc;
        let _e40 = k;
        let _e43 = table[_e40];
        acc = (_e39 + _e43);
        continuing {
            let _e45 = k;
            k = (_e45 + 1u);
        }
    }
    let _e48 = acc;
    scratch[vyre_local_id.x] = _e48;
    if (i < _e24) {
        if (i < 64u) {
            let _e56 = data[i];
            let _e59 = scratch[vyre_local_id.x];
            out[i] = (_e56 + _e59);
        }
    }
    let _e64 = (i + 1u);
    let _e66 = (_e64 < 64u);
    if _e66 {
        out[select(0u, _e64, _e66)] = 0u;
    }
}
