@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var sum: u32;
    var k: u32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    sum = 0u;
    k = 0u;
    loop {
        let _e14 = k;
        if !((_e14 < 8u)) {
            break;
        }
        let _e17 = k;
        if ((_e17 & 1u) == 1u) {
            continue;
        }
        let _e22 = k;
        let _e23 = (_e6 < 64u);
        let _e28 = input[select(0u, _e6, _e23)];
        if (_e22 > select(0u, _e28, _e23)) {
            break;
        }
        let _e32 = sum;
        let _e33 = k;
        sum = (_e32 + _e33);
        continuing {
            let _e35 = k;
            k = (_e35 + 1u);
        }
    }
    let _e38 = sum;
    let _e39 = (_e6 < 64u);
    if _e39 {
        out[select(0u, _e6, _e39)] = _e38;
    }
}
