"""sebench.rollout"""
