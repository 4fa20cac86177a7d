#!/usr/bin/env bash
# Qwen3-1.7B on one GPU, vLLM colocated. MODE: open | closed. INIT: optional `train sft` folder
# (SFT->RL). MODEL: a local snapshot (`huggingface-cli download Qwen/Qwen3-1.7B --local-dir ...`).
set -euo pipefail
: "${MODEL:?local Qwen3-1.7B folder}" "${DATA:?training tasks JSONL}" "${API_DOC:?api_doc.jsonl}"
: "${OUT:?output folder}" "${MODE:=closed}"
accelerate launch --config_file recipes/accelerate/single_gpu.yaml \
  --module sebench.cli.main train grpo \
  --mode "$MODE" --model "$MODEL" ${INIT:+--init "$INIT"} --data "$DATA" --api-doc "$API_DOC" \
  --out "$OUT" --vllm colocate --bf16 --micro-batch 8 --max-new-tokens 2048 --steps 200
