@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<i32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var sum: i32;
    var n: u32;
    var k: u32;
    var j: i32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    sum = 0i;
    let _e26 = (_e15 < 64u);
    let _e31 = input[select(0u, _e15, _e26)];
    n = select(0u, _e31, _e26);
    let vyre_k_end = n;
    k = 0u;
    loop {
        let _e38 = k;
        if !((_e38 < vyre_k_end)) {
            break;
        }
        let _e41 = n;
        n = (_e41 + 1u);
        j = -2i;
        loop {
            let _e47 = j;
            if !((_e47 < 3i)) {
                break;
            }
            let _e50 = sum;
            let _e51 = j;
            let _e52 = k;
            sum = (_e50 + (_e51 * bitcast<i32>(_e52)));
            continuing {
                let _e56 = j;
                j = (_e56 + 1i);
            }
        }
        continuing {
            let _e59 = k;
            k = (_e59 + 1u);
        }
    }
    let _e62 = sum;
    let _e63 = (_e15 < 64u);
    if _e63 {
        out[select(0u, _e15, _e63)] = _e62;
    }
}
