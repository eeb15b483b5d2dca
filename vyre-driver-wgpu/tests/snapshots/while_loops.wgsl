@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> steps: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var n: u32;
    var count: u32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = input[select(0u, _e6, _e9)];
    n = select(0u, _e14, _e9);
    count = 0u;
    loop {
        let _e20 = n;
        let _e23 = count;
        if !(((_e20 > 1u) && (_e23 < 100u))) {
            break;
        }
        let _e28 = count;
        count = (_e28 + 1u);
        let _e31 = n;
        if ((_e31 & 1u) == 0u) {
            let _e36 = n;
            n = (_e36 >> 1u);
            continue;
        } else {
            let _e39 = n;
            n = ((_e39 * 3u) + 1u);
        }
    }
    loop {
        if !(false) {
            break;
        }
        break;
    }
    let _e46 = count;
    let _e47 = (_e6 < 64u);
    if _e47 {
        steps[select(0u, _e6, _e47)] = _e46;
    }
}
