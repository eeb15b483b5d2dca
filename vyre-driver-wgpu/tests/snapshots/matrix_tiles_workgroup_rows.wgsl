diagnostic(off, derivative_uniformity);
enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) 
var<storage> a: array<vec4<f16>>;
@group(0) @binding(1) 
var<storage, read_write> c: array<f32>;
var<workgroup> st: array<vec4<f16>, 96>;

@compute @workgroup_size(32, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var acc: coop_mat16x16<f32,C>;
    var ta: coop_mat16x16<f16,A>;
    var tb: coop_mat16x16<f16,B>;

    acc = coop_mat16x16<f32,C>();
    ta = coop_mat16x16<f16,A>();
    tb = coop_mat16x16<f16,B>();
    let src = (((vyre_local_id.x >> 1u) * 16u) + ((vyre_local_id.x & 1u) * 8u));
    let dst = (((vyre_local_id.x >> 1u) * 24u) + ((vyre_local_id.x & 1u) * 8u));
    let _e32 = a[(src >> 2u)];
    st[(dst >> 2u)] = vec4<f16>(_e32.x, _e32.y, _e32.z, _e32.w);
    let _e50 = a[((src + 4u) >> 2u)];
    st[((dst + 4u) >> 2u)] = vec4<f16>(_e50.x, _e50.y, _e50.z, _e50.w);
    workgroupBarrier();
    let _e65 = select(0u, (384u - 0u), (0u < 384u));
    if ((_e65 >= 16u) && (24u <= ((_e65 - 16u) / 15u))) {
        ta = coopLoadT<coop_mat16x16<f16,A>>((&st[0u]), 6u);
    } else {
        ta = coop_mat16x16<f16,A>();
    }
    let _e84 = select(0u, (384u - 0u), (0u < 384u));
    if ((_e84 >= 16u) && (24u <= ((_e84 - 16u) / 15u))) {
        tb = coopLoad<coop_mat16x16<f16,B>>((&st[0u]), 6u);
    } else {
        tb = coop_mat16x16<f16,B>();
    }
    let _e98 = ta;
    let _e99 = tb;
    let _e100 = acc;
    acc = coopMultiplyAdd(_e98, _e99, _e100);
    let _e107 = select(0u, (256u - 0u), (0u < 256u));
    if (((_e107 >= 16u) && (16u <= ((_e107 - 16u) / 15u))) && (16u >= 16u)) {
        let _e119 = acc;
        coopStoreT(_e119, (&c[0u]), 16u);
    }
}
