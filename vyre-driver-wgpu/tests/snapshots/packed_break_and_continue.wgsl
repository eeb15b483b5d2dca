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
    sum = 0u;
    k = 0u;
    loop {
        let _e51 = k;
        if !((_e51 < 8u)) {
            break;
        }
        let _e54 = k;
        if ((_e54 & 1u) == 1u) {
            continue;
        }
        let _e59 = k;
        let _e63 = input[((_e37 * 64u) + _e38)];
        if (_e59 > _e63) {
            break;
        }
        let _e65 = sum;
        let _e66 = k;
        sum = (_e65 + _e66);
        continuing {
            let _e68 = k;
            k = (_e68 + 1u);
        }
    }
    let _e71 = sum;
    out[((_e37 * 64u) + _e38)] = _e71;
}
