// linear_recurrence captured into a CUDA graph: every strategy's enqueue (the tile status memset,
// programmatic launches, the allocating overload's stream-ordered allocation) records into a graph
// that, replayed on fresh inputs in the same buffers, gives the float64 reference's answer each time.
#include "../common/tensor_support.cuh"

#include <linrec/linear_recurrence.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using namespace linrec::testing;
using linrec::strategy;
using linrec::tensor_layout;

enum class storage { caller_temp, stream_ordered };

class graph_capture_test : public gpu_test {
 protected:
  // Captures one call on `layout` (sizes fixed, pointers fixed), then replays the graph
  // `replays` times, each on fresh inputs uploaded into the same buffers with outputs poisoned.
  void capture_and_replay(const tensor_layout& layout, storage how, strategy expected, int replays = 3) {
    ASSERT_EQ(linrec::chosen_strategy<float>(layout), expected) << "the shape no longer takes the path it tests";
    auto p = random_tensor_problem<float>(layout, a_dist::half_to_one, true);
    const std::size_t h_span = std::size_t(span(layout, layout.h));
    const std::size_t finals = std::size_t(layout.batch * layout.channels);
    device_buffer<float> inputs(p.inputs.size()), h(h_span), h0(finals), h_final(finals);
    const float* a = inputs.get() + p.a_at;
    const float* b = inputs.get() + p.b_at;

    stream_owner stream;
    std::size_t temp_bytes = 0;
    ASSERT_TRUE(linrec::linear_recurrence<float>(nullptr, temp_bytes, a, b, h.get(), layout, h0.get(), h_final.get()).ok());
    device_buffer<unsigned char> temp(how == storage::caller_temp ? temp_bytes : 0);

    const captured_graph graph(stream.get(), [&](cudaStream_t s) {
      return how == storage::caller_temp
                 ? linrec::linear_recurrence<float>(temp.get(), temp_bytes, a, b, h.get(), layout, h0.get(), h_final.get(), s)
                 : linrec::linear_recurrence<float>(a, b, h.get(), layout, h0.get(), h_final.get(), s);
    });
    ASSERT_TRUE(graph.enqueued().ok()) << graph.enqueued().message();
    EXPECT_GT(graph.nodes(), 0u) << "nothing was recorded";

    for (int replay = 0; replay < replays; ++replay) {
      SCOPED_TRACE(replay);
      if (replay > 0) p = random_tensor_problem<float>(layout, a_dist::half_to_one, true);
      inputs.upload(p.inputs);
      h0.upload(p.h0);
      h.poison();
      h_final.poison();
      if (how == storage::caller_temp) LINREC_CUDA_CHECK(cudaMemset(temp.get(), 0xab, temp.size()));
      // The uploads and fills ran on the legacy stream, which a non-blocking stream does not
      // wait for: without this, a fill could land after the graph's writes.
      LINREC_CUDA_CHECK(cudaDeviceSynchronize());
      graph.launch(stream.get());
      LINREC_CUDA_CHECK(cudaGetLastError());
      LINREC_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      tensor_result<float> out{h.download(), h_final.download()};
      expect_tensor_matches_reference(p, out);
    }
  }
};

TEST_F(graph_capture_test, tiled_lookback_replays_match_reference) {
  capture_and_replay(tensor_layout::batch_channels_time(1, 300007, 1), storage::caller_temp, strategy::tiled_lookback);
}

TEST_F(graph_capture_test, block_per_row_replays_match_reference) {
  capture_and_replay(tensor_layout::batch_channels_time(2, 999, 600), storage::caller_temp, strategy::block_per_row);
}

TEST_F(graph_capture_test, warp_per_row_replays_match_reference) {
  capture_and_replay(tensor_layout::batch_channels_time(3, 100, 700), storage::caller_temp, strategy::warp_per_row);
}

TEST_F(graph_capture_test, channel_tiles_replays_match_reference) {
  capture_and_replay(tensor_layout::batch_time_channels(1, 5001, 1000), storage::caller_temp, strategy::channel_tiles);
}

TEST_F(graph_capture_test, channel_walk_replays_match_reference) {
  capture_and_replay(tensor_layout::time_batch_channels(8, 129, 4096), storage::caller_temp, strategy::channel_walk);
}

// The allocating overload records its cudaMallocAsync / cudaFreeAsync as graph memory nodes.
TEST_F(graph_capture_test, stream_ordered_storage_replays_match_reference) {
  capture_and_replay(tensor_layout::batch_channels_time(1, 300007, 1), storage::stream_ordered, strategy::tiled_lookback);
  capture_and_replay(tensor_layout::batch_time_channels(1, 5001, 1000), storage::stream_ordered, strategy::channel_tiles);
}

}  // namespace
