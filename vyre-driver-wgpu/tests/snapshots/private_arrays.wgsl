@group(0) @binding(0) 
var<storage> inp: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var acc: array<f32, 4>;
    var k: u32;
    var tmp: array<u32, 2>;

    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    acc = array<f32, 4>();
    k = 0u;
    loop {
        let _e14 = k;
        if !((_e14 < 4u)) {
            break;
        }
        tmp = array<u32, 2>();
        let _e21 = (_e6 < 64u);
        let _e26 = inp[select(0u, _e6, _e21)];
        let _e29 = k;
        tmp[1u] = (select(0u, _e26, _e21) + _e29);
        let _e31 = k;
        let _e35 = tmp[1u];
        acc[_e31] = f32(_e35);
        continuing {
            let _e37 = k;
            k = (_e37 + 1u);
        }
    }
    let _e40 = (_e6 < 64u);
    let _e45 = inp[select(0u, _e6, _e40)];
    let _e47 = select(0u, _e45, _e40);
    let _e49 = (_e47 < 4u);
    if _e49 {
        acc[select(0u, _e47, _e49)] = 1.5f;
    }
    let _e54 = (_e6 < 64u);
    let _e59 = inp[select(0u, _e6, _e54)];
    let s = bitcast<i32>(select(0u, _e59, _e54));
    let _e63 = bitcast<u32>(s);
    let _e65 = (_e63 < 4u);
    let _e69 = acc[select(0u, _e63, _e65)];
    let _e72 = (_e6 < 64u);
    let _e77 = inp[select(0u, _e6, _e72)];
    let _e79 = select(0u, _e77, _e72);
    let _e81 = (_e79 < 4u);
    let _e85 = acc[select(0u, _e79, _e81)];
    let _e89 = (_e6 < 64u);
    if _e89 {
        out[select(0u, _e6, _e89)] = (select(0f, _e69, _e65) + select(0f, _e85, _e81));
    }
}
