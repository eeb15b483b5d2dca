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

    let _e12 = vyre_params[3u];
    let _e20 = (((vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z)))) * 64u) + vyre_local_id.x);
    if (_e20 >= (64u * _e12)) {
        return;
    }
    sum = 0u;
    k = 0u;
    loop {
        let _e28 = k;
        if !((_e28 < 8u)) {
            break;
        }
        let _e31 = k;
        if ((_e31 & 1u) == 1u) {
            continue;
        }
        let _e36 = k;
        let _e39 = input[_e20];
        if (_e36 > _e39) {
            break;
        }
        let _e41 = sum;
        let _e42 = k;
        sum = (_e41 + _e42);
        continuing {
            let _e44 = k;
            k = (_e44 + 1u);
        }
    }
    let _e47 = sum;
    out[_e20] = _e47;
}
