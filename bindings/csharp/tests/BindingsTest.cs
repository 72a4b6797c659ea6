// The C# bindings under mono (compiled with mcs by ctest, no test framework: exits non-zero and
// prints the failures). Checks:
//  1. every struct of AnimComp.Native has the C size and field offsets (layout.g.c's output);
//  2. a clip compressed and sampled through the bindings gives the C program's blob and poses
//     bit for bit (reference.c's files);
//  3. a bad blob is refused with its status, through the raw and the safe layer;
//  4. the playback cache through the safe layer: its size, attach and detach (16-byte aligned
//     memory owned by the Decompressor, freed on detach and Dispose), poses of forward and
//     backward playback and jumps bit for bit those of a context without a cache.
// Usage: mono BindingsTest.exe <layout.txt> <reference dir>
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using AnimComp;
using AnimComp.Native;

static unsafe class BindingsTest
{
    static readonly float[] Times = { 0.0f, 0.1f, 0.333f, 0.5f, 1.0f, 1.25f };
    static int failures, checks;

    static void Check(bool ok, string what)
    {
        ++checks;
        if (!ok) { ++failures; Console.WriteLine("FAIL: " + what); }
    }

    static void Layout(string layoutFile)
    {
        var c = new Dictionary<string, long>();
        foreach (var line in File.ReadAllLines(layoutFile))
        {
            var parts = line.Split(' ');
            c[parts[0] + " " + parts[1]] = long.Parse(parts[2]);
        }
        var structs = typeof(NativeMethods).Assembly.GetTypes()
            .Where(t => t.Namespace == "AnimComp.Native" && t.IsValueType && !t.IsEnum && !t.IsNested).ToList();
        Check(structs.Count > 0 && structs.Count == c.Keys.Count(k => k.StartsWith("size ")),
              "every C struct has a C# struct (" + structs.Count + ")");
        foreach (var t in structs)
        {
            long size;
            Check(c.TryGetValue("size " + t.Name, out size) && size == Marshal.SizeOf(t),
                  t.Name + ": C# size " + Marshal.SizeOf(t) + ", C size " + size);
            foreach (var f in t.GetFields())
            {
                long offset;
                var key = "offset " + t.Name + "." + f.Name;
                Check(c.TryGetValue(key, out offset) && offset == Marshal.OffsetOf(t, f.Name).ToInt64(),
                      key + ": C# " + Marshal.OffsetOf(t, f.Name) + ", C " + offset);
            }
        }
    }

    static T[] Read<T>(string path) where T : struct
    {
        var bytes = File.ReadAllBytes(path);
        var result = new T[bytes.Length / Marshal.SizeOf(typeof(T))];
        Buffer.BlockCopy(bytes, 0, result, 0, result.Length * Marshal.SizeOf(typeof(T)));
        return result;
    }

    static void BitForBit(string dir)
    {
        var xf = Read<float>(Path.Combine(dir, "clip.f32"));
        var parents = Read<int>(Path.Combine(dir, "parents.i32"));
        var expectedBlob = File.ReadAllBytes(Path.Combine(dir, "blob.bin"));
        var expectedPoses = Read<float>(Path.Combine(dir, "poses.f32"));
        int joints = parents.Length;
        fixed (float* x = xf)
        fixed (int* p = parents)
        {
            var clip = new AnimcompRawClip();
            clip.num_joints = (uint)joints;
            clip.num_samples = (uint)(xf.Length / (joints * 10));
            clip.sample_rate = 30.0f;
            clip.layout = (uint)AnimcompLayout.ANIMCOMP_LAYOUT_SAMPLE_MAJOR;
            clip.parents = p;
            clip.rotations = x;
            clip.translations = x + 4;
            clip.scales = x + 7;
            clip.rotation_stride = clip.translation_stride = clip.scale_stride = 10;
            using (var blob = Blob.Compress(clip))
            {
                Check(((long)blob.Pointer & 15) == 0, "blob is 16-byte aligned");
                Check(blob.ToArray().SequenceEqual(expectedBlob), "blob bytes equal the C API's (" + blob.Size + " vs " + expectedBlob.Length + ")");
                Check(blob.Info().num_joints == joints, "blob info");
                using (var d = new Decompressor(blob))
                {
                    var pose = new float[joints * 10];
                    for (int t = 0; t < Times.Length; ++t)
                    {
                        Check(d.Seek(Times[t], AnimcompLooping.ANIMCOMP_LOOPING_WRAP) == AnimcompStatus.ANIMCOMP_STATUS_OK, "seek");
                        Check(d.SamplePose(pose) == AnimcompStatus.ANIMCOMP_STATUS_OK, "sample");
                        bool same = true;
                        for (int i = 0; i < pose.Length; ++i)
                            same &= BitConverter.ToInt32(BitConverter.GetBytes(pose[i]), 0) ==
                                    BitConverter.ToInt32(BitConverter.GetBytes(expectedPoses[t * pose.Length + i]), 0);
                        Check(same, "pose at " + Times[t] + " equals the C API's bit for bit");
                    }
                    // Native memory route (what NativeArray<float> uses): strided output.
                    var buffer = new NativeBuffer((joints - 1) * 12 * 4 + 40);
                    Check(d.SamplePose((float*)buffer.Pointer, (joints - 1) * 12 + 10, 12) == AnimcompStatus.ANIMCOMP_STATUS_OK, "strided sample");
                    Check(((float*)buffer.Pointer)[12 * 2 + 3] == pose[2 * 10 + 3], "strided pose matches");
                    buffer.Dispose();
                    Check(d.SamplePose(new float[5]) == AnimcompStatus.ANIMCOMP_STATUS_BUFFER_TOO_SMALL, "short buffer status");
                    // Unity-style separate arrays (what the NativeArray overloads pass) and UE5 doubles.
                    AnimcompPoseLayout unity, ue5;
                    Check(Decompressor.PoseLayoutPreset(NativeMethods.ANIMCOMP_POSE_PRESET_UNITY_SEPARATE, out unity) == AnimcompStatus.ANIMCOMP_STATUS_OK, "unity preset");
                    Check(Decompressor.PoseLayoutPreset(NativeMethods.ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM, out ue5) == AnimcompStatus.ANIMCOMP_STATUS_OK, "ue5 preset");
                    var rot = new NativeBuffer(joints * 16);
                    var pos = new NativeBuffer(joints * 12);
                    var scl = new NativeBuffer(joints * 12);
                    Check(d.SamplePose(unity, (void*)rot.Pointer, joints * 16, (void*)pos.Pointer, joints * 12, (void*)scl.Pointer, joints * 12) == AnimcompStatus.ANIMCOMP_STATUS_OK, "unity arrays");
                    bool arraysSame = true;
                    for (int j = 0; j < joints; ++j)
                    {
                        for (int k = 0; k < 4; ++k) arraysSame &= ((float*)rot.Pointer)[j * 4 + k] == pose[j * 10 + k];
                        for (int k = 0; k < 3; ++k) arraysSame &= ((float*)pos.Pointer)[j * 3 + k] == pose[j * 10 + 4 + k];
                        for (int k = 0; k < 3; ++k) arraysSame &= ((float*)scl.Pointer)[j * 3 + k] == pose[j * 10 + 7 + k];
                    }
                    Check(arraysSame, "unity arrays equal the ten-float pose");
                    var ue5Xf = new NativeBuffer(joints * 96);
                    Check(d.SamplePose(ue5, (void*)ue5Xf.Pointer, joints * 96) == AnimcompStatus.ANIMCOMP_STATUS_OK, "ue5 transforms");
                    Check(((double*)ue5Xf.Pointer)[12 * 2 + 4 + 1] == (double)pose[2 * 10 + 5], "ue5 translation is the widened float");
                    Check(d.SamplePose(ue5, (void*)ue5Xf.Pointer, 95) == AnimcompStatus.ANIMCOMP_STATUS_BUFFER_TOO_SMALL, "ue5 short buffer");
                    // The same layouts checked once.
                    AnimcompCheckedPoseLayout unityChecked;
                    Check(Decompressor.CheckPoseLayout(unity, out unityChecked) == AnimcompStatus.ANIMCOMP_STATUS_OK, "unity checked");
                    var rot2 = new NativeBuffer(joints * 16);
                    var pos2 = new NativeBuffer(joints * 12);
                    var scl2 = new NativeBuffer(joints * 12);
                    Check(d.SamplePose(unityChecked, (void*)rot2.Pointer, joints * 16, (void*)pos2.Pointer, joints * 12, (void*)scl2.Pointer, joints * 12) == AnimcompStatus.ANIMCOMP_STATUS_OK, "unity arrays, checked layout");
                    bool checkedSame = true;
                    for (int i = 0; i < joints * 4; ++i) checkedSame &= ((float*)rot2.Pointer)[i] == ((float*)rot.Pointer)[i];
                    for (int i = 0; i < joints * 3; ++i) checkedSame &= ((float*)pos2.Pointer)[i] == ((float*)pos.Pointer)[i] && ((float*)scl2.Pointer)[i] == ((float*)scl.Pointer)[i];
                    Check(checkedSame, "a checked layout writes the same arrays");
                    AnimcompCheckedPoseLayout zeroed = default(AnimcompCheckedPoseLayout);
                    Check(d.SamplePose(zeroed, (void*)rot2.Pointer, joints * 16, (void*)pos2.Pointer, joints * 12, (void*)scl2.Pointer, joints * 12) == AnimcompStatus.ANIMCOMP_STATUS_INVALID_ARGUMENT, "an unchecked layout is refused");
                    rot2.Dispose(); pos2.Dispose(); scl2.Dispose();
                    rot.Dispose(); pos.Dispose(); scl.Dispose(); ue5Xf.Dispose();
                }
                OpenOnceBindMany(blob, joints, expectedPoses);
                PlaybackCache(blob, joints, expectedPoses);
            }
        }
    }

    // Open once, bind many: every context bound from one OpenedBlob (whose AnimcompBlob handle
    // lives in aligned native memory owned by the safe layer) samples the C API's poses.
    static void OpenOnceBindMany(Blob blob, int joints, float[] expectedPoses)
    {
        for (int round = 0; round < 20; ++round)
        {
            using (var opened = new OpenedBlob(blob))
            {
                Check(((long)opened.Handle & 15) == 0, "opened handle is 16-byte aligned");
                var contexts = new Decompressor[3];
                for (int k = 0; k < contexts.Length; ++k) contexts[k] = opened.Bind();
                var pose = new float[joints * 10];
                for (int t = 0; t < Times.Length; ++t)
                {
                    var d = contexts[t % contexts.Length];
                    Check(((long)d.Context & 15) == 0, "bound context is 16-byte aligned");
                    Check(d.Seek(Times[t], AnimcompLooping.ANIMCOMP_LOOPING_WRAP) == AnimcompStatus.ANIMCOMP_STATUS_OK, "bound seek");
                    Check(d.SamplePose(pose) == AnimcompStatus.ANIMCOMP_STATUS_OK, "bound sample");
                    bool same = true;
                    for (int i = 0; i < pose.Length; ++i)
                        same &= BitConverter.ToInt32(BitConverter.GetBytes(pose[i]), 0) ==
                                BitConverter.ToInt32(BitConverter.GetBytes(expectedPoses[t * pose.Length + i]), 0);
                    if (round == 0) Check(same, "bound pose at " + Times[t] + " equals the C API's bit for bit");
                    else if (!same) Check(false, "bound pose differs in round " + round);
                }
                Check(contexts[0].SampleCurves(new float[0]) == AnimcompStatus.ANIMCOMP_STATUS_OK, "no curves: nothing to write");
                foreach (var d in contexts) d.Dispose();
            }
        }
    }

    static bool SameBits(float[] a, float[] b)
    {
        if (a.Length != b.Length) return false;
        for (int i = 0; i < a.Length; ++i)
            if (BitConverter.ToInt32(BitConverter.GetBytes(a[i]), 0) != BitConverter.ToInt32(BitConverter.GetBytes(b[i]), 0))
                return false;
        return true;
    }

    // The playback cache through the safe layer: a context with a cache attached plays the poses of
    // one without, bit for bit; the cache memory is the Decompressor's, aligned, freed on detach
    // and on Dispose.
    static void PlaybackCache(Blob blob, int joints, float[] expectedPoses)
    {
        using (var opened = new OpenedBlob(blob))
        {
            long size = opened.PlaybackCacheSize;
            Check(size > 64 + 640, "the blob has a playback cache of at least one group of animated tracks (" + size + " bytes)");
            var plain = opened.Bind();
            var cached = opened.Bind();
            Check(cached.PlaybackCacheSize == size, "context and blob agree on the cache size");
            Check(!cached.HasPlaybackCache && cached.PlaybackCacheBuffer == null, "no cache before attaching");
            Check(cached.AttachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "attach");
            var buffer = cached.PlaybackCacheBuffer;
            Check(cached.HasPlaybackCache && buffer != null && buffer.Size == size, "the attached cache has the size asked");
            Check(((long)buffer.Pointer & 15) == 0, "the attached cache is 16-byte aligned");
            var a = new float[joints * 10];
            var b = new float[joints * 10];
            // At the reference times: the C program's poses.
            for (int t = 0; t < Times.Length; ++t)
            {
                cached.Seek(Times[t], AnimcompLooping.ANIMCOMP_LOOPING_WRAP);
                Check(cached.SamplePose(b) == AnimcompStatus.ANIMCOMP_STATUS_OK, "sample with a cache");
                var expected = new float[a.Length];
                Array.Copy(expectedPoses, t * a.Length, expected, 0, a.Length);
                Check(SameBits(b, expected), "cached pose at " + Times[t] + " equals the C API's bit for bit");
            }
            // Forward at 60 fps (wrapping), backward, jumps: each pose against the plain context.
            int differ = 0, frames = 0;
            var times = new List<float>();
            for (int k = 0; k < 150; ++k) times.Add(k / 60.0f);
            for (int k = 0; k < 40; ++k) times.Add(1.0f - k / 60.0f);
            times.AddRange(new[] { 0.9f, 0.05f, 0.0667f, 1.2f, 0.41f, 0.42f });
            foreach (var t in times)
            {
                Check(plain.Seek(t, AnimcompLooping.ANIMCOMP_LOOPING_WRAP) == AnimcompStatus.ANIMCOMP_STATUS_OK, "plain seek");
                Check(cached.Seek(t, AnimcompLooping.ANIMCOMP_LOOPING_WRAP) == AnimcompStatus.ANIMCOMP_STATUS_OK, "cached seek");
                plain.SamplePose(a);
                Check(cached.SamplePose(b) == AnimcompStatus.ANIMCOMP_STATUS_OK, "cached sample");
                ++frames;
                if (!SameBits(a, b)) ++differ;
            }
            Check(differ == 0, differ + " of " + frames + " playback poses through the cache differ from the plain ones");
            // The cache was used: its first bytes hold the grouped cache's tag ("ACP3"). The cache
            // is the AVX2 decoder's: a CPU without AVX2 samples without it (memory left as it was).
            bool avx2 = System.IO.File.Exists("/proc/cpuinfo")
                && System.IO.File.ReadAllText("/proc/cpuinfo").Contains(" avx2");
            if (avx2)
                Check(buffer.Pointer[0] == (byte)'A' && buffer.Pointer[1] == (byte)'C'
                    && buffer.Pointer[2] == (byte)'P' && buffer.Pointer[3] == (byte)'3', "the cache was filled");
            // Attaching again replaces it, and frees the old memory.
            Check(cached.AttachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "attach again");
            Check(buffer.Pointer == null && cached.PlaybackCacheBuffer != buffer, "the replaced cache was freed");
            buffer = cached.PlaybackCacheBuffer;
            Check(cached.DetachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "detach");
            Check(!cached.HasPlaybackCache && buffer.Pointer == null, "detaching frees the cache");
            Check(cached.DetachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "detach twice");
            cached.Seek(0.5f);
            plain.Seek(0.5f);
            plain.SamplePose(a);
            Check(cached.SamplePose(b) == AnimcompStatus.ANIMCOMP_STATUS_OK && SameBits(a, b), "a detached context samples the plain pose");
            // Dispose with a cache attached frees it.
            Check(cached.AttachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "attach before dispose");
            buffer = cached.PlaybackCacheBuffer;
            cached.Dispose();
            Check(buffer.Pointer == null && !cached.HasPlaybackCache, "Dispose frees the cache");
            plain.Dispose();
            // Many contexts with caches come and go (leaks would show under the sanitizer runs).
            for (int round = 0; round < 50; ++round)
                using (var d = opened.Bind())
                    Check(d.AttachPlaybackCache() == AnimcompStatus.ANIMCOMP_STATUS_OK, "attach in round " + round);
        }
    }

    static void BadBlob(string dir)
    {
        var bytes = File.ReadAllBytes(Path.Combine(dir, "blob.bin"));
        bytes[bytes.Length - 1] ^= 0x20;
        try
        {
            using (Blob.FromBytes(bytes)) { }
            Check(false, "a corrupted blob was accepted");
        }
        catch (AnimCompException e)
        {
            Check(e.Status == AnimcompStatus.ANIMCOMP_STATUS_CHECKSUM_MISMATCH, "corrupted blob: " + e.Status);
            Check(e.Message == "blob checksum mismatch" || e.Message.Length > 0, "message: " + e.Message);
        }
        var junk = new byte[64];
        fixed (byte* j = junk)
        {
            var buffer = new NativeBuffer(64);
            Check(NativeMethods.animcomp_validate_blob(buffer.Pointer, new UIntPtr(64)) == AnimcompStatus.ANIMCOMP_STATUS_BAD_MAGIC, "zeros: bad magic");
            Check(NativeMethods.animcomp_validate_blob(null, new UIntPtr(64)) == AnimcompStatus.ANIMCOMP_STATUS_NULL_POINTER, "null blob");
            buffer.Dispose();
        }
        var clip = new AnimcompRawClip();
        try { using (Blob.Compress(clip)) { } Check(false, "an empty clip compressed"); }
        catch (AnimCompException e) { Check(e.Status != AnimcompStatus.ANIMCOMP_STATUS_OK, "empty clip: " + e.Status); }
    }

    static int Main(string[] args)
    {
        uint major, minor, patch;
        NativeMethods.animcomp_version(&major, &minor, &patch);
        Check(major == NativeMethods.ANIMCOMP_VERSION_MAJOR && minor == NativeMethods.ANIMCOMP_VERSION_MINOR, "library version matches the bindings");
        Layout(args[0]);
        BitForBit(args[1]);
        BadBlob(args[1]);
        Console.WriteLine("C# bindings: " + (checks - failures) + " checks passed, " + failures + " failed");
        return failures == 0 ? 0 : 1;
    }
}
