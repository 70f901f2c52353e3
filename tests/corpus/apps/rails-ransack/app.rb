# frozen_string_literal: true

# A small project tracker as a Rails API-only application (what `rails new --api` and
# `rails generate scaffold` make, in one file): projects, people and tasks, the index actions
# filtered and sorted by ransack (`q[status_eq]=todo`, `q[s]=priority desc`) and paginated by
# kaminari through api-pagination (`page`/`per_page`, `Link`, `Total` and `Per-Page` headers).
#
#   ruby app.rb PORT    (from the folder that is to hold the SQLite file: record.py runs it in run/)
#
# Every start deletes the SQLite file, creates the tables and inserts seed.json with explicit ids
# and clocks; the clock every write stamps is frozen (CLOCK). Binds 127.0.0.1 only and calls no
# network: no mailer, no jobs, no cable, no storage are loaded.

ENV["BUNDLE_GEMFILE"] ||= File.expand_path("Gemfile", __dir__)
ENV["RAILS_ENV"] ||= "production"
require "bundler/setup"
require "json"
require "logger"
require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "kaminari"
require "ransack"
require "api-pagination"
require "rack/handler/webrick"

PORT = Integer(ARGV.fetch(0, "18887"))
DB = File.expand_path("tracker.sqlite3")
CLOCK = Time.utc(2026, 12, 6, 9, 30, 0)
SEED = JSON.parse(File.read(File.expand_path("seed.json", __dir__)))

[DB, "#{DB}-journal", "#{DB}-wal", "#{DB}-shm"].each { |f| File.delete(f) if File.exist?(f) }
ENV["DATABASE_URL"] = "sqlite3:#{DB}"

class TrackerApp < Rails::Application
  config.load_defaults 6.1
  config.root = Dir.pwd
  config.api_only = true
  config.eager_load = false
  config.secret_key_base = "rea-corpus-rails-ransack-fixed-key-not-a-secret"
  config.logger = ActiveSupport::Logger.new($stdout)
  config.log_level = :info
  config.consider_all_requests_local = false
  config.active_record.dump_schema_after_migration = false
  # the request id and the runtime headers change at every call; the recordings leave them out
  config.middleware.delete ActionDispatch::RequestId
  config.middleware.delete Rack::Runtime
end

# config/initializers/wrap_parameters.rb of a generated app: a flat JSON body is wrapped under
# the model's name (`{"title": …}` reaches the controller as `task: {title: …}`)
ActiveSupport.on_load(:action_controller) { wrap_parameters format: [:json] }

# config/initializers/kaminari.rb and api_pagination.rb
Kaminari.configure do |c|
  c.default_per_page = 10
  c.max_per_page = 50
end
ApiPagination.configure do |c|
  c.paginator = :kaminari
  c.total_header = "Total"
  c.per_page_header = "Per-Page"
  c.include_total = true
end

# config/routes.rb (the application is initialized first: the controllers below, defined after it,
# get its route helpers, which `location: @task` needs)
TrackerApp.initialize!

TrackerApp.routes.draw do
  resources :projects do
    resources :tasks, only: %i[index create]
  end
  resources :people
  resources :tasks
end

# ------------------------------------------------------------------ models
class ApplicationRecord < ActiveRecord::Base
  self.abstract_class = true

  # the frozen clock every create and update stamps
  def self.current_time_from_proper_timezone
    CLOCK
  end
end

class Project < ApplicationRecord
  has_many :tasks, dependent: :destroy
  validates :code, presence: true, uniqueness: true
  validates :name, presence: true

  def self.ransackable_attributes(_auth_object = nil)
    %w[id code name budget active created_at updated_at]
  end

  def self.ransackable_associations(_auth_object = nil)
    %w[tasks]
  end
end

class Person < ApplicationRecord
  has_many :tasks, foreign_key: :assignee_id, inverse_of: :assignee, dependent: :nullify
  validates :name, presence: true
  validates :role, inclusion: { in: %w[engineer designer manager] }
  validates :email, format: { with: URI::MailTo::EMAIL_REGEXP }, allow_nil: true

  def self.ransackable_attributes(_auth_object = nil)
    %w[id name email role created_at updated_at]
  end

  def self.ransackable_associations(_auth_object = nil)
    %w[tasks]
  end
end

class Task < ApplicationRecord
  belongs_to :project
  belongs_to :assignee, class_name: "Person", optional: true
  validates :title, presence: true
  validates :status, inclusion: { in: %w[todo doing done] }
  validates :priority, numericality: { only_integer: true, greater_than_or_equal_to: 1, less_than_or_equal_to: 3 }

  def self.ransackable_attributes(_auth_object = nil)
    %w[id title status priority estimate due project_id assignee_id created_at updated_at]
  end

  def self.ransackable_associations(_auth_object = nil)
    %w[project assignee]
  end
end

# ------------------------------------------------------------------ controllers (scaffold style)
class ApplicationController < ActionController::API
  private

  # GET index: ransack's `q` filters and sorts (id order unless `q[s]` says otherwise),
  # api-pagination pages (`page`, `per_page`) and answers the headers
  def search(scope)
    @q = scope.ransack(params[:q])
    @q.sorts = "id asc" if @q.sorts.empty?
    @q.result(distinct: true)
  end
end

class ProjectsController < ApplicationController
  before_action :set_project, only: %i[show update destroy]

  # GET /projects
  def index
    paginate json: search(Project)
  end

  # GET /projects/1
  def show
    render json: @project
  end

  # POST /projects
  def create
    @project = Project.new(project_params)
    if @project.save
      render json: @project, status: :created, location: @project
    else
      render json: @project.errors, status: :unprocessable_entity
    end
  end

  # PATCH/PUT /projects/1
  def update
    if @project.update(project_params)
      render json: @project
    else
      render json: @project.errors, status: :unprocessable_entity
    end
  end

  # DELETE /projects/1
  def destroy
    @project.destroy
  end

  private

  def set_project
    @project = Project.find(params[:id])
  end

  def project_params
    params.require(:project).permit(:code, :name, :budget, :active)
  end
end

class PeopleController < ApplicationController
  before_action :set_person, only: %i[show update destroy]

  # GET /people
  def index
    paginate json: search(Person)
  end

  # GET /people/1
  def show
    render json: @person
  end

  # POST /people
  def create
    @person = Person.new(person_params)
    if @person.save
      render json: @person, status: :created, location: @person
    else
      render json: @person.errors, status: :unprocessable_entity
    end
  end

  # PATCH/PUT /people/1
  def update
    if @person.update(person_params)
      render json: @person
    else
      render json: @person.errors, status: :unprocessable_entity
    end
  end

  # DELETE /people/1
  def destroy
    @person.destroy
  end

  private

  def set_person
    @person = Person.find(params[:id])
  end

  def person_params
    params.require(:person).permit(:name, :email, :role)
  end
end

class TasksController < ApplicationController
  # the nested route's :project_id (a body's project_id is wrapped into params too: not that one)
  before_action :set_project, if: -> { request.path_parameters.key?(:project_id) }
  before_action :set_task, only: %i[show update destroy]

  # GET /tasks, GET /projects/1/tasks
  def index
    paginate json: search(@project ? @project.tasks : Task)
  end

  # GET /tasks/1
  def show
    render json: @task
  end

  # POST /tasks, POST /projects/1/tasks
  def create
    @task = @project ? @project.tasks.new(task_params) : Task.new(task_params)
    if @task.save
      render json: @task, status: :created, location: @task
    else
      render json: @task.errors, status: :unprocessable_entity
    end
  end

  # PATCH/PUT /tasks/1
  def update
    if @task.update(task_params)
      render json: @task
    else
      render json: @task.errors, status: :unprocessable_entity
    end
  end

  # DELETE /tasks/1
  def destroy
    @task.destroy
  end

  private

  def set_project
    @project = Project.find(params[:project_id])
  end

  def set_task
    @task = Task.find(params[:id])
  end

  def task_params
    params.require(:task).permit(:title, :status, :priority, :estimate, :due, :project_id, :assignee_id)
  end
end

# ------------------------------------------------------------------ schema and seed
ActiveRecord::Schema.verbose = false
ActiveRecord::Schema.define do
  create_table :projects do |t|
    t.string :code, null: false
    t.string :name, null: false
    t.integer :budget, null: false, default: 0
    t.boolean :active, null: false, default: true
    t.timestamps
  end
  add_index :projects, :code, unique: true

  create_table :people do |t|
    t.string :name, null: false
    t.string :email
    t.string :role, null: false, default: "engineer"
    t.timestamps
  end

  create_table :tasks do |t|
    t.string :title, null: false
    t.string :status, null: false, default: "todo"
    t.integer :priority, null: false, default: 2
    t.integer :estimate
    t.date :due
    t.references :project, null: false, foreign_key: true
    t.references :assignee, foreign_key: { to_table: :people }
    t.timestamps
  end
end

Project.insert_all!(SEED.fetch("projects"))
Person.insert_all!(SEED.fetch("people"))
Task.insert_all!(SEED.fetch("tasks"))

Rack::Handler::WEBrick.run(
  TrackerApp,
  Host: "127.0.0.1",
  Port: PORT,
  AccessLog: [],
  Logger: WEBrick::Log.new($stderr, WEBrick::Log::WARN)
) do |server|
  # record.py stops the app by its PID with SIGINT
  %w[INT TERM].each { |sig| trap(sig) { server.shutdown } }
end
