"""The grader inside the RL engines researchers run at scale (sebench trains nothing here).

- `labels`: what names a sample's task (a task id, or the whole task row as JSON)
- `scores`: what an engine receives (a float reward, numeric per-sample logs per verdict)
- `openrlhf`: OpenRLHF's remote reward format, request -> tasks and responses -> answer
- `reward_service`, `reward_server`: `sebench serve-reward`, a bounded, concurrent queue in
  front of the warm grader, over HTTP
- `process_grader`, `verl`: verl's `custom_reward_function` (`compute_score`,
  `compute_score_batch`) on one warm grader per process
- `verl_data`: `sebench export verl`, the parquet rows verl reads (open and closed, aligned)

TRL needs nothing here: `sebench.training.rewards.SebenchReward` is its reward function.
Nothing is imported by this package itself: verl imports `sebench.integrations.verl` alone.
"""
