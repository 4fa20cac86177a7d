#!/usr/bin/env bash
# Qwen3-8B on eight GPUs (ZeRO-3), vLLM colocated in each training process.
set -euo pipefail
: "${MODEL:?local Qwen3-8B folder}" "${DATA:?training tasks JSONL}" "${API_DOC:?api_doc.jsonl}"
: "${OUT:?output folder}" "${MODE:=closed}"
accelerate launch --config_file recipes/accelerate/zero3_8gpu.yaml \
  --module sebench.cli.main train grpo \
  --mode "$MODE" --model "$MODEL" ${INIT:+--init "$INIT"} --data "$DATA" --api-doc "$API_DOC" \
  --out "$OUT" --vllm colocate --bf16 --micro-batch 4 --max-new-tokens 2048 --steps 200
