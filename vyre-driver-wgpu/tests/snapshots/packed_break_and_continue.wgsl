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

    let _e24 = vyre_params[3u];
    let _e27 = vyre_params[4u];
    let _e34 = (((vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z)))) * 64u) + vyre_local_id.x);
    if (_e34 >= (_e27 * _e24)) {
        return;
    }
    let _e37 = (_e34 / _e27);
    let _e38 = (_e34 % _e27);
    let _e44 = vyre_params[8u];
    let _e48 = vyre_params[9u];
    sum = 0u;
    k = 0u;
    loop {
        let _e55 = k;
        if !((_e55 < 8u)) {
            break;
        }
        let _e58 = k;
        if ((_e58 & 1u) == 1u) {
            continue;
        }
        let _e63 = k;
        let _e64 = (_e38 < _e44);
        let _e70 = input[((_e37 * _e44) + select(0u, _e38, _e64))];
        if (_e63 > select(0u, _e70, _e64)) {
            break;
        }
        let _e74 = sum;
        let _e75 = k;
        sum = (_e74 + _e75);
        continuing {
            let _e77 = k;
            k = (_e77 + 1u);
        }
    }
    let _e80 = sum;
    let _e81 = (_e38 < _e48);
    if _e81 {
        out[((_e37 * _e48) + select(0u, _e38, _e81))] = _e80;
    }
}
