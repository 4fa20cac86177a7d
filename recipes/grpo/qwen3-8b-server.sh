#!/usr/bin/env bash
# Qwen3-8B: a vLLM server on GPUs 4-7 (`trl vllm-serve`), training on GPUs 0-3 (ZeRO-3).
set -euo pipefail
: "${MODEL:?local Qwen3-8B folder}" "${DATA:?training tasks JSONL}" "${API_DOC:?api_doc.jsonl}"
: "${OUT:?output folder}" "${MODE:=closed}"
CUDA_VISIBLE_DEVICES=4,5,6,7 trl vllm-serve --model "${INIT:-$MODEL}" --data-parallel-size 4 &
CUDA_VISIBLE_DEVICES=0,1,2,3 accelerate launch --config_file recipes/accelerate/zero3_4gpu.yaml \
  --module sebench.cli.main train grpo \
  --mode "$MODE" --model "$MODEL" ${INIT:+--init "$INIT"} --data "$DATA" --api-doc "$API_DOC" \
  --out "$OUT" --vllm server --bf16 --micro-batch 4 --max-new-tokens 2048 --steps 200
