@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: i32;
    var y: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    x = select(0i, _e30, _e25);
    let _e34 = (_e15 < 64u);
    let _e39 = b[select(0u, _e15, _e34)];
    y = select(0u, _e39, _e34);
    let _e46 = ((_e15 * 2u) + 0u);
    let _e47 = x;
    let _e48 = y;
    let _e52 = (_e46 < 128u);
    if _e52 {
        out[select(0u, _e46, _e52)] = (_e47 << (_e48 & 31u));
    }
    let _e60 = ((_e15 * 2u) + 1u);
    let _e61 = x;
    let _e62 = y;
    let _e66 = (_e60 < 128u);
    if _e66 {
        out[select(0u, _e60, _e66)] = (_e61 >> (_e62 & 31u));
    }
}
