@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var sum: u32;
    var k: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    sum = 0u;
    k = 0u;
    loop {
        let _e29 = k;
        if !((_e29 < 8u)) {
            break;
        }
        let _e32 = k;
        if ((_e32 & 1u) == 1u) {
            continue;
        }
        let _e37 = k;
        let _e38 = (_e15 < 64u);
        let _e43 = input[select(0u, _e15, _e38)];
        if (_e37 > select(0u, _e43, _e38)) {
            break;
        }
        let _e47 = sum;
        let _e48 = k;
        sum = (_e47 + _e48);
        continuing {
            let _e50 = k;
            k = (_e50 + 1u);
        }
    }
    let _e53 = sum;
    let _e54 = (_e15 < 64u);
    if _e54 {
        out[select(0u, _e15, _e54)] = _e53;
    }
}
