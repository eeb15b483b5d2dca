@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = (wid.x + wid.y * nwg.x) * 64u + lid;
    if (i >= arrayLength(&out)) {
        return;
    }
    let x = a[i];
    let y = b[i];
    var v = x + y;
    v = v * 3u;
    let s = v >> 5u;
    v = v ^ s;
    v = v + y;
    v = v * SALTu;
    v = v ^ x;
    v = v | 1u;
    v = v - 7u;
    out[i] = max(v, y);
}
