@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: u32;
    var y: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    x = select(0u, _e30, _e25);
    let _e34 = (_e15 < 64u);
    let _e39 = b[select(0u, _e15, _e34)];
    y = select(0u, _e39, _e34);
    let _e46 = ((_e15 * 2u) + 0u);
    let _e47 = x;
    let _e48 = y;
    let _e54 = (_e46 < 128u);
    if _e54 {
        out[select(0u, _e46, _e54)] = (_e47 / select(_e48, 1u, (_e48 == 0u)));
    }
    let _e62 = ((_e15 * 2u) + 1u);
    let _e63 = x;
    let _e64 = y;
    let _e70 = (_e62 < 128u);
    if _e70 {
        out[select(0u, _e62, _e70)] = (_e63 % select(_e64, 1u, (_e64 == 0u)));
    }
}
