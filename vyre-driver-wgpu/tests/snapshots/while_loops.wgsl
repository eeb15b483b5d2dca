@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> steps: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var n: u32;
    var count: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = input[select(0u, _e15, _e24)];
    n = select(0u, _e29, _e24);
    count = 0u;
    loop {
        let _e35 = n;
        let _e38 = count;
        if !(((_e35 > 1u) && (_e38 < 100u))) {
            break;
        }
        let _e43 = count;
        count = (_e43 + 1u);
        let _e46 = n;
        if ((_e46 & 1u) == 0u) {
            let _e51 = n;
            n = (_e51 >> (1u & 31u));
            continue;
        } else {
            let _e56 = n;
            n = ((_e56 * 3u) + 1u);
        }
    }
    loop {
        if !(false) {
            break;
        }
        break;
    }
    let _e63 = count;
    let _e64 = (_e15 < 64u);
    if _e64 {
        steps[select(0u, _e15, _e64)] = _e63;
    }
}
