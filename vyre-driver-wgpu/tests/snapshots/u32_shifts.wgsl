@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = a[select(0u, _e6, _e10)];
    let x = select(0u, _e15, _e10);
    let _e18 = (_e6 < 64u);
    let _e23 = b[select(0u, _e6, _e18)];
    let y = select(0u, _e23, _e18);
    let _e29 = ((_e6 * 2u) + 0u);
    let _e33 = (_e29 < 128u);
    if _e33 {
        out[select(0u, _e29, _e33)] = (x << (y & 31u));
    }
    let _e41 = ((_e6 * 2u) + 1u);
    let _e45 = (_e41 < 128u);
    if _e45 {
        out[select(0u, _e41, _e45)] = (x >> (y & 31u));
    }
}
