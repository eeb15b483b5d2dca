@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<i32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var sum: i32;
    var n: u32;
    var k: u32;
    var j: i32;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    sum = 0i;
    let _e11 = (_e6 < 64u);
    let _e16 = input[select(0u, _e6, _e11)];
    n = select(0u, _e16, _e11);
    let vyre_k_end = n;
    k = 0u;
    loop {
        let _e23 = k;
        if !((_e23 < vyre_k_end)) {
            break;
        }
        let _e26 = n;
        n = (_e26 + 1u);
        j = -2i;
        loop {
            let _e32 = j;
            if !((_e32 < 3i)) {
                break;
            }
            let _e35 = sum;
            let _e36 = j;
            let _e37 = k;
            sum = (_e35 + (_e36 * bitcast<i32>(_e37)));
            continuing {
                let _e41 = j;
                j = (_e41 + 1i);
            }
        }
        continuing {
            let _e44 = k;
            k = (_e44 + 1u);
        }
    }
    let _e47 = sum;
    let _e48 = (_e6 < 64u);
    if _e48 {
        out[select(0u, _e6, _e48)] = _e47;
    }
}
